"""The lines phones and mail apps add below what the player wrote, and the
separators they put above the quoted email, in the site's five languages.

mail-parser-reply knows English's ("Sent from my iPhone"); the others'
("Von meinem iPhone gesendet", "Verstuurd vanaf mijn iPhone", "Envoyé de mon
iPhone", "나의 iPhone에서 보냄", Samsung Galaxy's and Outlook's for phones) are
here, so they never become table talk. A separator ("----- 원본 메시지 -----",
"-------- Ursprüngliche Nachricht --------") starts history: nothing below
it is the player's.
"""

from __future__ import annotations

import re

_SENT = r"(?:sent|gesendet|verstuurd|verzonden|envoy[ée]|exp[ée]di[ée])"
_FROM = r"(?:from|with|using|via|von|mit|über|vanaf|met|via|de|depuis|à partir de|a partir de|avec|par)"
# One line, short, that says which device or app sent the mail (and nothing more).
_DEVICE_LINE = re.compile(
    r"^(?:"
    rf"{_SENT}\s+{_FROM}\s.{{1,60}}"  # Sent from my iPhone, Gesendet von meinem iPad, Envoyé de mon iPhone
    r"|von\s.{1,60}\sgesendet"  # Von meinem iPhone gesendet, Von meinem Samsung Galaxy Smartphone gesendet
    r"|(?:.{0,30}\s)?outlook\s+(?:for|für|voor|pour)\s+(?:android|ios)\b.{0,30}"  # Get Outlook for Android
    r"|.{0,60}에서\s*보냄"  # 나의 iPhone에서 보냄, Galaxy S23 Ultra에서 보냄, 삼성 갤럭시 스마트폰에서 보냄
    r"|.{0,30}outlook\s*받기"  # Android용 Outlook 받기
    r")[.!。]?$",
    re.IGNORECASE,
)
# "----- Original Message -----" and its kin, with any number of dashes and spaces.
_SEPARATOR = re.compile(
    r"^-{2,}\s*(?:original message|ursprüngliche nachricht|originalnachricht|oorspronkelijk bericht"
    r"|origineel bericht|message d'origine|message original|원본 메시지|원래 메시지"
    r"|forwarded message|weitergeleitete nachricht|doorgestuurd bericht|message transféré|전달된 메시지)\s*-{2,}$",
    re.IGNORECASE,
)
MAX_SIGNATURE = 80


def device_line(line: str) -> bool:
    """Whether ``line`` is a phone's or mail app's "Sent from my …" line, in any of the site's languages."""
    stripped = line.strip()
    return 0 < len(stripped) <= MAX_SIGNATURE and _DEVICE_LINE.match(stripped) is not None


def separator(line: str) -> bool:
    """Whether ``line`` is an "----- Original Message -----" separator above quoted history."""
    return _SEPARATOR.match(line.strip()) is not None
