from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="games:list", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/v1/", include("games.api.urls")),
    path("accounts/", include("accounts.urls")),
    path("mail/", include("notifications.urls")),
    path("inbound/", include("anymail.urls")),
    path("games/", include("games.web.urls")),
]
if settings.DEBUG:
    urlpatterns.append(path("i18n/", include("django.conf.urls.i18n")))
