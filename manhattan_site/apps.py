"""The admin app with the project's own site (``accounts.permissions.AdminSite``:
staff signed in with a password only)."""

from django.contrib.admin.apps import AdminConfig


class ManhattanAdminConfig(AdminConfig):
    default_site = "accounts.permissions.AdminSite"
