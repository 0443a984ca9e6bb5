from django.urls import path

from . import close_views, developer_apps, oauth, views

app_name = "accounts"
urlpatterns = [
    path("login/", views.login_view, name="login"),
    path("logout/", views.logout_view, name="logout"),
    path("close/", close_views.close_account_view, name="close"),
    path("apps/", oauth.authorized_apps_view, name="apps"),
    path("developer/apps/", developer_apps.developer_apps_view, name="developer_apps"),
    path("developer/apps/<int:app_id>/delete/", developer_apps.delete_app_view, name="delete_app"),
    path("link/<str:purpose>/<str:token>/", views.link_view, name="link"),
]
