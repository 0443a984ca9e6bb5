from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from accounts import oauth
from games.api.problems import api_not_found
from manhattan_site import favicon, health, metrics, operations
from notifications.export_views import DataExportView
from notifications.inbound import webhook
from ratings.api import LeaderboardView, PlayerView

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="games:list", permanent=False)),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("favicon.ico", favicon.favicon, name="favicon"),
    path("metrics", metrics.metrics_view, name="metrics"),
    path("admin/operations/", admin.site.admin_view(operations.operations_view), name="admin-operations"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("webhooks.api.urls")),
    # The players API lives in the ratings app; games' API URLs end in a catch-all 404.
    path("api/v1/players/<str:player_id>", PlayerView.as_view(), name="api-player"),
    path("api/v1/leaderboard", LeaderboardView.as_view(), name="api-leaderboard"),
    path("api/v1/me/export", DataExportView.as_view(), name="api-me-export"),
    path("api/v1/", include("streams.urls")),
    path("api/v1/", include("games.api.urls")),
    re_path(r"^api/", api_not_found),
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
