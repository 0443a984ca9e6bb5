#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")
    import django
    from django.core.management import execute_from_command_line

    django.setup()
    from manhattan_site.local_folders import prepare_local_folders

    prepare_local_folders()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
