# ruff: noqa: E501 - raw mail as clients write it reads best unwrapped
"""Replies shaped as real mail clients write them: raw MIME, headers, quoting
and HTML as Gmail, Outlook 2003–2010, Hotmail/Outlook.com, Thunderbird,
Windows Mail, Yandex, Mail.ru and Apple Mail send them. Each quotes our email,
example move and all, so a reader that took a move from the quote would play
the wrong one."""

from __future__ import annotations

import base64
import quopri
from collections.abc import Callable

QUOTED_EXAMPLE = "select 1 1 2 3 4 4"  # never legal when the player is to place a piece
ORIGINAL_TEXT = [
    "Hello alice,",
    "It is your turn in your game of Manhattan.",
    "You can also play by replying to this email, for example:",
    f"    {QUOTED_EXAMPLE}",
    "- Card 3: city 1 (lot 2) — size 1",
]


def _headers(to: str, message_id: str, content_type: str, extra: str = "", encoding: str = "") -> str:
    lines = [
        "From: Alice <alice@example.com>",
        f"To: {to}",
        "Subject: Re: Manhattan 1a2b3c4d: your turn",
        "Date: Mon, 01 Jan 2024 10:05:00 +0100",
        f"Message-ID: {message_id}",
        "In-Reply-To: <original@manhattan-by-mail>",
        "MIME-Version: 1.0",
        f"Content-Type: {content_type}",
    ]
    if encoding:
        lines.append(f"Content-Transfer-Encoding: {encoding}")
    if extra:
        lines.append(extra)
    return "\r\n".join(lines) + "\r\n\r\n"


def _quoted_html() -> str:
    return "".join(f"<div>{line.replace('<', '&lt;')}</div>" for line in ORIGINAL_TEXT)


def _alternative(text: str, html: str, boundary: str = "000000000000abcdef") -> str:
    return (
        f'--{boundary}\r\nContent-Type: text/plain; charset="UTF-8"\r\n\r\n{text}\r\n'
        f'--{boundary}\r\nContent-Type: text/html; charset="UTF-8"\r\n\r\n{html}\r\n--{boundary}--\r\n'
    )


def gmail(
    to: str,
    move: str,
    message_id: str,
    wrote: str = "On Mon, 1 Jan 2024 at 10:00, Manhattan by mail <play@localhost> wrote:",
) -> bytes:
    quoted_text = "\r\n".join(f"> {line}" for line in ORIGINAL_TEXT)
    html = (
        f'<div dir="ltr">{move}</div><br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{wrote}<br></div>'
        f'<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);'
        f'padding-left:1ex">{_quoted_html()}</blockquote></div>'
    )
    body = _alternative(f"{move}\r\n\r\n{wrote}\r\n\r\n{quoted_text}", html)
    return (_headers(to, message_id, 'multipart/alternative; boundary="000000000000abcdef"') + body).encode()


def gmail_html_only(
    to: str,
    move: str,
    message_id: str,
    wrote: str = "On Mon, 1 Jan 2024 at 10:00, Manhattan by mail <play@localhost> wrote:",
) -> bytes:
    html = (
        "<html><head><style>div{font-family:Arial}</style></head><body>"
        f'<div dir="ltr">{move.replace("&", "&amp;")}</div><br><div class="gmail_quote">'
        f'<div dir="ltr" class="gmail_attr">{wrote}<br></div><blockquote class="gmail_quote">{_quoted_html()}'
        "</blockquote></div></body></html>"
    )
    encoded = base64.encodebytes(html.encode()).decode()
    return (_headers(to, message_id, 'text/html; charset="UTF-8"', encoding="base64") + encoded).encode()


def outlook_2003(to: str, move: str, message_id: str) -> bytes:
    text = (
        f"{move}\r\n\r\n-----Original Message-----\r\nFrom: Manhattan by mail [mailto:play@localhost]\r\n"
        "Sent: Monday, January 01, 2024 10:00 AM\r\nTo: alice@example.com\r\nSubject: Manhattan 1a2b3c4d: your turn\r\n\r\n"
        + "\r\n".join(ORIGINAL_TEXT)
    )
    return (
        _headers(to, message_id, 'text/plain; charset="us-ascii"', extra="X-Mailer: Microsoft Office Outlook 11") + text
    ).encode()


def outlook_2010(to: str, move: str, message_id: str) -> bytes:
    """HTML-only, windows-1252, quoted-printable, the history below a border-top block (no blockquote)."""
    html = (
        '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta http-equiv=Content-Type content="text/html; '
        'charset=windows-1252"><style><!-- p.MsoNormal {margin:0cm;} --></style><!--[if gte mso 9]><xml><o:shapedefaults '
        'v:ext="edit" spidmax="1026" /></xml><![endif]--></head><body lang=EN-US><div class=WordSection1>'
        f"<p class=MsoNormal>{move}<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
        "<div><div style='border:none;border-top:solid #B5C4DF 1.0pt;padding:3.0pt 0cm 0cm 0cm'>"
        "<p class=MsoNormal><b>From:</b> Manhattan by mail [mailto:play@localhost] <br><b>Sent:</b> Monday, January 01, "
        "2024 10:00 AM<br><b>To:</b> alice@example.com<br><b>Subject:</b> Manhattan 1a2b3c4d: your turn<o:p></o:p></p>"
        "</div></div><p class=MsoNormal><o:p>&nbsp;</o:p></p>"
        + "".join(f"<p class=MsoNormal>{line}<o:p></o:p></p>" for line in ORIGINAL_TEXT)
        + "</div></body></html>"
    )
    encoded = quopri.encodestring(html.encode("cp1252", "xmlcharrefreplace")).decode()
    return (
        _headers(
            to,
            message_id,
            'text/html; charset="windows-1252"',
            encoding="quoted-printable",
            extra="X-Mailer: Microsoft Outlook 14.0",
        )
        + encoded
    ).encode()


def hotmail(to: str, move: str, message_id: str) -> bytes:
    """Outlook.com: HTML-only, the history after a divRplyFwdMsg header, not quoted."""
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style type="text/css" '
        'style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr">'
        f'<div style="font-family: Calibri, Helvetica, sans-serif; font-size: 12pt;">{move}</div>'
        '<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, '
        'sans-serif" style="font-size:11pt" color="#000000"><b>From:</b> Manhattan by mail &lt;play@localhost&gt;<br>'
        "<b>Sent:</b> Monday, January 1, 2024 10:00<br><b>To:</b> alice@example.com<br><b>Subject:</b> your turn</font>"
        f"<div>&nbsp;</div></div><div>{_quoted_html()}</div></body></html>"
    )
    return (_headers(to, message_id, 'text/html; charset="utf-8"') + html).encode()


def thunderbird_bottom_posted(to: str, move: str, message_id: str) -> bytes:
    """Plain text, format=flowed, the move below the quote."""
    quoted = "\r\n".join(f"> {line}" for line in ORIGINAL_TEXT)
    text = f"On 01/01/2024 10:00, Manhattan by mail wrote:\r\n{quoted}\r\n\r\n{move}\r\n\r\n-- \r\nAlice\r\n"
    return (
        _headers(to, message_id, "text/plain; charset=UTF-8; format=flowed", extra="User-Agent: Mozilla Thunderbird")
        + text
    ).encode()


def thunderbird_html_bottom_posted(to: str, move: str, message_id: str) -> bytes:
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>'
        '<div class="moz-cite-prefix">On 01/01/2024 10:00, Manhattan by mail wrote:<br></div>'
        f'<blockquote type="cite" cite="mid:original@manhattan-by-mail">{_quoted_html()}</blockquote>'
        f'<p>{move}</p><pre class="moz-signature" cols="72">-- \nAlice</pre></body></html>'
    )
    return (_headers(to, message_id, "text/html; charset=UTF-8") + html).encode()


def windows_mail(to: str, move: str, message_id: str) -> bytes:
    """Windows (Live) Mail: HTML-only in a multipart, ISO-8859-1, the original in a blockquote."""
    html = (
        '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.0 Transitional//EN"><HTML><HEAD><META content="text/html; '
        'charset=iso-8859-1" http-equiv=Content-Type></HEAD><BODY><DIV><FONT size=2 face=Arial>'
        f'{move}</FONT></DIV><BLOCKQUOTE style="BORDER-LEFT: #000000 2px solid; PADDING-LEFT: 5px">'
        '<DIV style="FONT: 10pt arial">----- Original Message ----- </DIV><DIV><B>From:</B> Manhattan by mail</DIV>'
        f"<DIV><B>Sent:</B> Monday, January 01, 2024 10:00 AM</DIV>{_quoted_html()}</BLOCKQUOTE></BODY></HTML>"
    )
    boundary = "----=_NextPart_000_0007_01DA3C8A"
    body = (
        f"This is a multi-part message in MIME format.\r\n\r\n--{boundary}\r\n"
        f'Content-Type: text/html;\r\n\tcharset="iso-8859-1"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n'
        f"{quopri.encodestring(html.encode('latin-1', 'xmlcharrefreplace')).decode()}\r\n--{boundary}--\r\n"
    )
    return (
        _headers(
            to,
            message_id,
            f'multipart/alternative;\r\n\tboundary="{boundary}"',
            extra="X-Mailer: Microsoft Windows Live Mail 16.4",
        )
        + body
    ).encode()


def yandex(to: str, move: str, message_id: str) -> bytes:
    html = (
        f'<div>{move}</div><div> </div><div>01.01.2024, 12:00, "Manhattan by mail" &lt;play@localhost&gt;:</div>'
        f"<blockquote>{_quoted_html()}</blockquote>"
    )
    encoded = base64.encodebytes(html.encode()).decode()
    return (
        _headers(
            to, message_id, "text/html; charset=utf-8", encoding="base64", extra="X-Mailer: Yamail [ http://yandex.ru ]"
        )
        + encoded
    ).encode()


def mail_ru(to: str, move: str, message_id: str) -> bytes:
    html = (
        f"<HTML><BODY><div>{move}</div><br><br><br>"
        '<blockquote style="border-left:1px solid #0857A6; margin:10px; padding:0 0 0 10px;">'
        "Понедельник, 1 января 2024, 12:00 +03:00 от Manhattan by mail &lt;play@localhost&gt;:<br>"
        f'<div id=""><div class="js-helper js-readmsg-msg">{_quoted_html()}</div></div></blockquote></BODY></HTML>'
    )
    encoded = base64.encodebytes(html.encode()).decode()
    return (
        _headers(to, message_id, "text/html; charset=utf-8", encoding="base64", extra="X-Mailer: Mail.Ru Mailer 1.0")
        + encoded
    ).encode()


def apple_mail(to: str, move: str, message_id: str) -> bytes:
    quoted = "\r\n".join(f"> {line}" for line in ORIGINAL_TEXT)
    text = f"{move}\r\n\r\nSent from my iPhone\r\n\r\n> On 1 Jan 2024, at 10:00, Manhattan by mail <play@localhost> wrote:\r\n> \r\n{quoted}\r\n"
    html = (
        f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto">'
        f'<div dir="ltr">{move}</div><div dir="ltr"><br><div dir="ltr">Sent from my iPhone</div><blockquote type="cite">'
        f"On 1 Jan 2024, at 10:00, Manhattan by mail &lt;play@localhost&gt; wrote:<br><br></blockquote></div>"
        f'<blockquote type="cite"><div dir="ltr">{_quoted_html()}</div></blockquote></body></html>'
    )
    return (
        _headers(to, message_id, 'multipart/alternative; boundary="Apple-Mail-1"')
        + _alternative(text, html, "Apple-Mail-1")
    ).encode()


CLIENTS: dict[str, Callable[[str, str, str], bytes]] = {
    "gmail": gmail,
    "gmail-html-only": gmail_html_only,
    "outlook-2003": outlook_2003,
    "outlook-2010-html-only": outlook_2010,
    "hotmail-html-only": hotmail,
    "thunderbird-bottom-posted": thunderbird_bottom_posted,
    "thunderbird-html-bottom-posted": thunderbird_html_bottom_posted,
    "windows-mail": windows_mail,
    "yandex": yandex,
    "mail-ru": mail_ru,
    "apple-mail": apple_mail,
}
# "On … wrote:" as Gmail writes it in each of the site's languages.
WROTE = {
    "en": "On Mon, 1 Jan 2024 at 10:00, Manhattan by mail <play@localhost> wrote:",
    "de": "Am Mo., 1. Jan. 2024 um 10:00 Uhr schrieb Manhattan by mail <play@localhost>:",
    "nl": "Op ma 1 jan 2024 om 10:00 schreef Manhattan by mail <play@localhost>:",
    "fr": "Le lun. 1 janv. 2024 à 10:00, Manhattan by mail <play@localhost> a écrit :",
    "ko": "2024년 1월 1일 (월) 오전 10:00, Manhattan by mail <play@localhost>님이 작성:",
}
