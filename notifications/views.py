"""Unsubscribing (one click, RFC 8058), email preferences, vacation, and the
development outbox that lists the emails written to files."""

from __future__ import annotations

import zoneinfo
from datetime import timedelta
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from accounts import links
from accounts.auth_helpers import request_user
from accounts.middleware import speak_language_of
from accounts.models import User

from . import bounces, outbox, reminders
from . import dev_outbox as dev_outbox_files
from .context_processors import dev_outbox
from .models import UNSUBSCRIBABLE, Kind, Preference


@csrf_exempt  # RFC 8058: mail clients POST "List-Unsubscribe=One-Click" with no session
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """GET shows a confirmation (scanners follow links); POST unsubscribes."""
    try:
        data = links.read_token(links.UNSUBSCRIBE, token)
    except links.BadLink as error:
        response = render(request, "accounts/bad_link.html", {"reason": error.reason}, status=400)
        response["Referrer-Policy"] = "no-referrer"
        return response
    user = User.objects.filter(pk=data.user_id or 0, email__iexact=data.email).first()
    if user is None or data.kind not in UNSUBSCRIBABLE:
        raise Http404
    if not request.user.is_authenticated:  # the language of the email the link came in
        speak_language_of(request, user)
    kind_label = Kind(data.kind).label
    done = False
    if request.method == "POST":
        preference = outbox.preference_for(user)
        if data.kind not in preference.unsubscribed:
            preference.unsubscribed = [*preference.unsubscribed, data.kind]
            preference.save(update_fields=["unsubscribed"])
        done = True
    response = render(request, "notifications/unsubscribe.html", {"kind": kind_label, "done": done, "token": token})
    response["Referrer-Policy"] = "no-referrer"
    return response


TIME_ZONES = [("", "UTC"), *((name, name) for name in sorted(zoneinfo.available_timezones()))]


@csrf_exempt  # RFC 8058 one-click, like unsubscribing
@require_http_methods(["GET", "POST"])
def no_invitations_view(request: HttpRequest, token: str) -> HttpResponse:
    """ "Do not invite me again", for an invitee without an account: GET asks, POST records it."""
    try:
        data = links.read_token(links.NO_INVITATIONS, token)
    except links.BadLink as error:
        response = render(request, "accounts/bad_link.html", {"reason": error.reason}, status=400)
        response["Referrer-Policy"] = "no-referrer"
        return response
    done = request.method == "POST"
    if done:
        bounces.block_invitations(data.email)
    response = render(request, "notifications/no_invitations.html", {"done": done, "token": token})
    response["Referrer-Policy"] = "no-referrer"
    return response


class PreferenceForm(forms.ModelForm[Preference]):
    # The language is the user's own (accounts), edited here beside the emails it is for.
    language = forms.ChoiceField(
        label=gettext_lazy("Language of the site and of the emails"), choices=settings.LANGUAGES, required=False
    )
    digest_hour = forms.TypedChoiceField(
        label=gettext_lazy("Send the daily digest at this hour"),
        choices=[(hour, f"{hour:02d}:00") for hour in range(24)],
        coerce=int,
        required=False,
        empty_value=None,
    )
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Your time zone (for the daily digest)"), choices=TIME_ZONES, required=False
    )
    vacation_days = forms.IntegerField(
        label=gettext_lazy("Vacation: pause my reminders and timeouts for this many days (0 ends it)"),
        min_value=0,
        max_value=30,
        required=False,
    )

    class Meta:
        model = Preference
        fields = ("frequency",)


@login_required
@require_http_methods(["GET", "POST"])
def preferences_view(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    preference = outbox.preference_for(user)
    initial = {"language": user.language, "time_zone": user.time_zone, "digest_hour": preference.digest_hour}
    form = PreferenceForm(request.POST or None, instance=preference, initial=initial)
    if request.method == "POST" and form.is_valid():
        form.save()
        hour = form.cleaned_data.get("digest_hour")
        if hour is not None and hour != preference.digest_hour:
            preference.digest_hour = hour
            preference.save(update_fields=["digest_hour"])
        language = form.cleaned_data.get("language") or ""
        if language != user.language:
            user.language = language
            user.save(update_fields=["language"])
            # The confirmation below is already in the language just chosen (the
            # browser's, when the choice is to follow it).
            translation.activate(language or translation.get_language_from_request(request))
        time_zone = form.cleaned_data.get("time_zone") or ""
        if time_zone != user.time_zone:
            user.time_zone = time_zone
            user.save(update_fields=["time_zone"])
        days = form.cleaned_data.get("vacation_days")
        if days is not None:
            reminders.set_vacation(user=user, until=timezone.now() + timedelta(days=days) if days else None)
        resubscribe = request.POST.getlist("resubscribe")
        if resubscribe:
            preference.refresh_from_db()
            preference.unsubscribed = [k for k in preference.unsubscribed if k not in resubscribe]
            preference.save(update_fields=["unsubscribed"])
        messages.success(request, _("Saved."))
        return redirect("notifications:preferences")
    unsubscribed = [(k, Kind(k).label) for k in preference.unsubscribed if k in Kind.values]
    return render(
        request,
        "notifications/preferences.html",
        {"form": form, "preference": preference, "unsubscribed": unsubscribed},
    )


# Emails shown in full on a page of the outbox: each is parsed and drawn in a frame.
OUTBOX_PAGE = 10


def outbox_view(request: HttpRequest) -> HttpResponse:
    """Development only: the emails the file backend wrote, newest first, each
    part as the player would see it."""
    if not dev_outbox(request)["show_dev_outbox"]:
        raise Http404
    raw_page = request.GET.get("page", "1")
    page = int(raw_page) if raw_page.isascii() and raw_page.isdigit() and len(raw_page) < 6 else 1
    page = max(page, 1)
    offset = (page - 1) * OUTBOX_PAGE
    messages_, total = dev_outbox_files.read(Path(settings.EMAIL_FILE_PATH), offset, OUTBOX_PAGE)
    context = {
        "emails": messages_,
        "newer_page": page - 1 if page > 1 else None,
        "older_page": page + 1 if offset + OUTBOX_PAGE < total else None,
        "total": total,
    }
    return render(request, "notifications/outbox.html", context)
