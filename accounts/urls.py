from django.urls import path

from . import oauth, views

app_name = "accounts"
urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("logout/", views.logout_view, name="logout"),
    path("apps/", oauth.authorized_apps_view, name="apps"),
    path("link/<str:purpose>/<str:token>/", views.link_view, name="link"),
]
