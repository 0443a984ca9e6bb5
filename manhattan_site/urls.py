from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from accounts import oauth
from manhattan_site import favicon, health, metrics, operations
from manhattan_site.api import urls as api_urls
from notifications.inbound import webhook

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="games:list", permanent=False)),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("favicon.ico", favicon.favicon, name="favicon"),
    path("metrics", metrics.metrics_view, name="metrics"),
    path("admin/operations/", admin.site.admin_view(operations.operations_view), name="admin-operations"),
    path("admin/", admin.site.urls),
    # Every app's API under /api/v1/ (each app names its URLs: AppConfig.api_urls), and a problem+json 404.
    *api_urls.urlpatterns,
    path("accounts/", include("accounts.urls")),
    path("oauth/", include((oauth.urlpatterns, "oauth2_provider"))),
    path("mail/", include("notifications.urls")),
    # Only the configured mail provider's inbound route (INBOUND_PROVIDER).
    path("inbound/", include((webhook.urlpatterns(), "anymail"))),
    path("games/", include("games.web.urls")),
    path("", include("ratings.urls")),
]
if settings.DEBUG:
    urlpatterns.append(path("i18n/", include("django.conf.urls.i18n")))
