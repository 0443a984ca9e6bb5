# ruff: noqa: E501 - replies as clients write them read best unwrapped
"""A corpus of replies as people's clients really write them, in each of the
site's languages: phones (iPhone, Samsung Galaxy, Outlook for Android), Gmail
(its text/plain wraps the "wrote:" line), Outlook desktop, web and plain text,
Apple Mail, Thunderbird top- and bottom-posted, with signatures. Each entry is
the text/plain body with ``{move}`` and ``{note}`` in it; the table talk the
reply must give is exactly ``{note}`` (what the writer wrote above the quote
and above the signature). Grows with each bug found."""

from __future__ import annotations

QUOTE = "> Manhattan Harbour 27: your turn (round 1 of 6)\n>\n> Hello alice,\n> It is your turn in your game of Manhattan.\n> You can also play by replying to this email, for example:\n>     select 1 1 2 3 4 4\n"
UNQUOTED = "Manhattan Harbour 27: your turn (round 1 of 6)\n\nHello alice,\nIt is your turn in your game of Manhattan.\nYou can also play by replying to this email, for example:\n    select 1 1 2 3 4 4\n"
ADDRESS = "play+aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@play.example.com"

NOTES = {
    "en": "Nice move, Bob.",
    "de": "Schöner Zug, Bob.",
    "nl": "Mooie zet, Bob.",
    "fr": "Joli coup, Bob.",
    "ko": "좋은 수네요, 밥.",
}

# Gmail's text/plain wraps the line above the quote at 78 columns, after the "<" of a long address.
GMAIL_WRAPPED = {
    "en": f"On Wed, 2 Dec 2026 at 15:00, Manhattan by mail <\n{ADDRESS}> wrote:",
    "de": f"Am Mi., 2. Dez. 2026 um 15:00 Uhr schrieb Manhattan by mail <\n{ADDRESS}>:",
    "nl": f"Op wo 2 dec 2026 om 15:00 schreef Manhattan by mail <\n{ADDRESS}>:",
    "fr": f"Le mer. 2 déc. 2026 à 15:00, Manhattan by mail <\n{ADDRESS}> a écrit :",
    "ko": f"2026년 12월 2일 (수) 오후 3:00, Manhattan by mail <\n{ADDRESS}>님이 작성:",
}
# ... or, with a shorter address, before the last word.
GMAIL_WRAPPED_LATE = {
    "en": "On Wed, Dec 2, 2026 at 3:00 PM Manhattan by mail <play@example.com>\nwrote:",
    "de": "Am Mi., 2. Dez. 2026 um 15:00 Uhr schrieb Manhattan by mail <\nplay@example.com>:",
    "nl": "Op wo 2 dec 2026 om 15:00 schreef Manhattan by mail\n<play@example.com>:",
    "fr": "Le mer. 2 déc. 2026 à 15:00, Manhattan by mail <play@example.com> a\nécrit :",
    "ko": "2026년 12월 2일 (수) 오후 3:00, Manhattan by mail <play@example.com>님이\n작성:",
}
IPHONE_SIGNATURE = {
    "en": "Sent from my iPhone",
    "de": "Von meinem iPhone gesendet",
    "nl": "Verstuurd vanaf mijn iPhone",
    "fr": "Envoyé de mon iPhone",
    "ko": "나의 iPhone에서 보냄",
}
IPHONE_WROTE = {
    "en": "On 2 Dec 2026, at 15:00, Manhattan by mail <play@example.com> wrote:",
    "de": "Am 02.12.2026 um 15:00 schrieb Manhattan by mail <play@example.com>:",
    "nl": "Op 2 dec. 2026 om 15:00 heeft Manhattan by mail <play@example.com> het volgende geschreven:",
    "fr": "Le 2 déc. 2026 à 15:00, Manhattan by mail <play@example.com> a écrit :",
    "ko": "2026. 12. 2. 오후 3:00, Manhattan by mail <play@example.com> 작성:",
}
GALAXY_SIGNATURE = {
    "en": "Sent from my Galaxy",
    "de": "Von meinem Samsung Galaxy Smartphone gesendet.",
    "nl": "Verzonden vanaf mijn Galaxy",
    "fr": "Envoyé depuis mon appareil Galaxy",
    "ko": "Galaxy S23 Ultra에서 보냄",
}
GALAXY_HEADER = {
    "en": "-------- Original message --------\nFrom: Manhattan by mail <play@example.com>\nDate: 02/12/2026 15:00 (GMT+01:00)\nTo: alice@example.com\nSubject: Manhattan: your turn",
    "de": "-------- Ursprüngliche Nachricht --------\nVon: Manhattan by mail <play@example.com>\nDatum: 02.12.26 15:00 (GMT+01:00)\nAn: alice@example.com\nBetreff: Manhattan: du bist dran",
    "nl": "-------- Oorspronkelijk bericht --------\nVan: Manhattan by mail <play@example.com>\nDatum: 02-12-2026 15:00 (GMT+01:00)\nAan: alice@example.com\nOnderwerp: Manhattan: jij bent aan de beurt",
    "fr": "-------- Message d'origine --------\nDe : Manhattan by mail <play@example.com>\nDate : 02/12/2026 15:00 (GMT+01:00)\nÀ : alice@example.com\nObjet : Manhattan : à toi de jouer",
    "ko": "----- 원본 메시지 -----\n보낸 사람: Manhattan by mail <play@example.com>\n날짜: 2026. 12. 2. 오후 3:00 (GMT+09:00)\n받는 사람: alice@example.com\n제목: Manhattan: 당신 차례입니다",
}
OUTLOOK_ANDROID = {
    "en": "Get Outlook for Android",
    "de": "Outlook für Android herunterladen",
    "nl": "Outlook voor Android downloaden",
    "fr": "Télécharger Outlook pour Android",
    "ko": "Android용 Outlook 받기",
}
OUTLOOK_HEADER = {
    "en": "From: Manhattan by mail <play@example.com>\nSent: Wednesday, December 2, 2026 3:00 PM\nTo: Alice <alice@example.com>\nSubject: Manhattan: your turn",
    "de": "Von: Manhattan by mail <play@example.com>\nGesendet: Mittwoch, 2. Dezember 2026 15:00\nAn: Alice <alice@example.com>\nBetreff: Manhattan: du bist dran",
    "nl": "Van: Manhattan by mail <play@example.com>\nVerzonden: woensdag 2 december 2026 15:00\nAan: Alice <alice@example.com>\nOnderwerp: Manhattan: jij bent aan de beurt",
    "fr": "De : Manhattan by mail <play@example.com>\nEnvoyé : mercredi 2 décembre 2026 15:00\nÀ : Alice <alice@example.com>\nObjet : Manhattan : à toi de jouer",
    "ko": "보낸 사람: Manhattan by mail <play@example.com>\n보낸 날짜: 2026년 12월 2일 수요일 오후 3:00\n받는 사람: Alice <alice@example.com>\n제목: Manhattan: 당신 차례입니다",
}
THUNDERBIRD_WROTE = {
    "en": "On 02/12/2026 15:00, Manhattan by mail wrote:",
    "de": "Am 02.12.26 um 15:00 schrieb Manhattan by mail:",
    "nl": "Op 02-12-2026 om 15:00 schreef Manhattan by mail:",
    "fr": "Le 02/12/2026 à 15:00, Manhattan by mail a écrit :",
    "ko": "2026. 12. 2. 오후 3:00에 Manhattan by mail이(가) 쓴 글:",
}
SIGNATURE = "-- \nAlice Example\nACME Ltd"


def corpus() -> dict[str, str]:
    """Every entry: name → text/plain body with ``{move}`` and ``{note}``."""
    entries: dict[str, str] = {}
    for lang in NOTES:
        entries[f"iphone-{lang}"] = f"{{move}}\n{{note}}\n\n{IPHONE_SIGNATURE[lang]}\n\n{IPHONE_WROTE[lang]}\n\n{QUOTE}"
        entries[f"iphone-no-note-{lang}"] = f"{{move}}\n\n{IPHONE_SIGNATURE[lang]}\n\n{IPHONE_WROTE[lang]}\n\n{QUOTE}"
        entries[f"galaxy-{lang}"] = (
            f"{{move}}\n{{note}}\n\n\n{GALAXY_SIGNATURE[lang]}\n\n\n{GALAXY_HEADER[lang]}\n\n{UNQUOTED}"
        )
        entries[f"outlook-android-{lang}"] = (
            f"{{move}}\n{{note}}\n\n{OUTLOOK_ANDROID[lang]}\n________________________________\n{OUTLOOK_HEADER[lang]}\n\n{UNQUOTED}"
        )
        entries[f"gmail-wrapped-top-{lang}"] = f"{{move}}\n{{note}}\n\n{GMAIL_WRAPPED[lang]}\n\n{QUOTE}"
        entries[f"gmail-wrapped-bottom-{lang}"] = f"{GMAIL_WRAPPED[lang]}\n\n{QUOTE}\n{{move}}\n{{note}}\n"
        entries[f"gmail-wrapped-late-top-{lang}"] = f"{{move}}\n{{note}}\n\n{GMAIL_WRAPPED_LATE[lang]}\n\n{QUOTE}"
        entries[f"gmail-wrapped-late-bottom-{lang}"] = f"{GMAIL_WRAPPED_LATE[lang]}\n\n{QUOTE}\n{{move}}\n{{note}}\n"
        entries[f"outlook-desktop-{lang}"] = (
            f"{{move}}\n{{note}}\n\n{SIGNATURE}\n\n{OUTLOOK_HEADER[lang]}\n\n{UNQUOTED}"
        )
        entries[f"outlook-plain-{lang}"] = (
            f"{{move}}\n{{note}}\n\n-----Original Message-----\n{OUTLOOK_HEADER[lang]}\n\n{UNQUOTED}"
        )
        entries[f"apple-mail-{lang}"] = f"{{move}}\n{{note}}\n\n> {IPHONE_WROTE[lang]}\n>\n{QUOTE}"
        entries[f"thunderbird-top-{lang}"] = f"{{move}}\n{{note}}\n\n{SIGNATURE}\n\n{THUNDERBIRD_WROTE[lang]}\n{QUOTE}"
        entries[f"thunderbird-bottom-{lang}"] = (
            f"{THUNDERBIRD_WROTE[lang]}\n{QUOTE}\n{{move}}\n{{note}}\n\n{SIGNATURE}\n"
        )
        entries[f"thunderbird-bottom-phone-{lang}"] = (
            f"{THUNDERBIRD_WROTE[lang]}\n{QUOTE}\n{{move}}\n{{note}}\n\n{IPHONE_SIGNATURE[lang]}\n"
        )
    return entries


CORPUS = corpus()
