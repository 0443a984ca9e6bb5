"""Table talk round trip in Chromium: a message written on one player's page
appears on the other's without a reload, and the answer, sent as an email
reply (a real MIME message through the inbound webhook, no move in it),
appears on the first player's page the same way."""

from __future__ import annotations

import random
import re
from email.message import EmailMessage

import httpx
import pytest
from django.conf import settings

from games.talk.models import TableMessage
from notifications import emails
from notifications.models import Kind
from tests.support.browser import signed_in
from tests.support.mail import QUOTED, basic_auth, latest
from tests.support.pages import (
    choose_a_card_and_a_lot,
    move_by_api,
    open_game,
    select_by_form,
    to_act,
    wait_for_version,
)
from tests.support.waiting import PAGE_TIMEOUT_MS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
WEBHOOK = "/inbound/sendgrid/inbound/"


def email_reply(to: str, text: str) -> bytes:
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = "Re: Manhattan: the game has started"
    message["Message-ID"] = "<talk-round-trip@mail.example.com>"
    message.set_content(f"{text}\n{QUOTED}")
    return message.as_bytes()


def test_a_message_round_trip_by_page_and_by_email_reply(server, browser, started_game, alice, bob):
    alices = open_game(signed_in(browser, server, alice), server, started_game)
    bobs = open_game(signed_in(browser, server, bob), server, started_game)

    bobs.get_by_test_id("talk-text").fill("Good luck, Alice! <b>no markup</b>")
    with bobs.expect_navigation():
        bobs.get_by_test_id("talk-text").press("Enter")  # Enter sends
    said = alices.get_by_test_id("talk-messages").get_by_text("Good luck, Alice! <b>no markup</b>")
    said.wait_for(timeout=PAGE_TIMEOUT_MS)  # on alice's page by itself
    assert alices.evaluate("window.notReloaded") is True
    bobs.get_by_test_id("talk-messages").get_by_text("Good luck, Alice!", exact=False).wait_for(timeout=PAGE_TIMEOUT_MS)
    bobs.evaluate("window.notReloaded = true")  # his own post reloaded his page; from here it must not
    # Beside the board on a desktop; the time in the reader's language, as a person writes it.
    board, talk = bobs.get_by_test_id("board").bounding_box(), bobs.get_by_test_id("talk").bounding_box()
    assert board
    assert talk
    assert talk["x"] >= board["x"] + board["width"]
    assert talk["y"] < board["y"] + board["height"], "the talk starts beside the board, not below the page"
    shown = bobs.locator("[data-testid=talk-message] time").first.inner_text()
    assert not re.search(r"\d+/\d+/\d{4}|[ap]\.m\.", shown), shown

    # Alice, who starts, answers from her "game started" email, which invites a reply.
    started_email = latest(Kind.GAME_STARTED, user=alice)
    reply_to = str(emails.build_message(started_email).reply_to[0])
    raw = email_reply(reply_to, "Thanks Bob, you too!\nBack tonight.")
    response = httpx.post(
        f"{server.url}{WEBHOOK}",
        files={"email": (None, raw)},  # multipart/form-data, as SendGrid posts it
        headers={"Authorization": basic_auth(settings.ANYMAIL["WEBHOOK_SECRET"])},
    )
    assert response.status_code == 200, response.text
    bobs.get_by_test_id("talk-messages").get_by_text("Back tonight.").wait_for(timeout=PAGE_TIMEOUT_MS)
    assert bobs.evaluate("window.notReloaded") is True
    assert [m.via for m in TableMessage.objects.order_by("id")] == ["web", "email"]


def test_a_half_typed_message_survives_the_live_refresh(server, browser, started_game, alice, bob):
    """Alice is writing when a move (then a message) arrives: the page swaps its
    content under her, and her draft, the caret in it and the focus stay."""
    alices = open_game(signed_in(browser, server, alice), server, started_game)
    bobs = open_game(signed_in(browser, server, bob), server, started_game)
    talk = alices.get_by_test_id("talk-text")
    talk.click()
    talk.press_sequentially("Nice move, but the tower")
    alices.evaluate("document.getElementById('talk-text').setSelectionRange(5, 9)")  # "move" chosen

    version = move_by_api(server, started_game, to_act(started_game))
    wait_for_version(alices, version)
    assert alices.evaluate("window.notReloaded") is True
    assert talk.input_value() == "Nice move, but the tower"
    caret = alices.evaluate(
        "() => { const t = document.activeElement; return [t.id, t.selectionStart, t.selectionEnd]; }"
    )
    assert caret == ["talk-text", 5, 9], "the focus and the caret stay where they were"

    alices.keyboard.type("play")  # typing on replaces the chosen word, as if nothing had happened
    wait_for_version(bobs, version)
    bobs.get_by_test_id("talk-text").fill("Thanks!")
    with bobs.expect_navigation():
        bobs.get_by_test_id("talk-text").press("Enter")
    alices.get_by_test_id("talk-messages").get_by_text("Thanks!").wait_for(timeout=PAGE_TIMEOUT_MS)  # a talk refresh
    assert talk.input_value() == "Nice play, but the tower"
    assert alices.evaluate("document.activeElement.id") == "talk-text"
    with alices.expect_navigation():
        talk.press("Enter")  # and it is sent as written
    alices.get_by_test_id("talk-messages").get_by_text("Nice play, but the tower").wait_for(timeout=PAGE_TIMEOUT_MS)
    assert talk.input_value() == "", "a sent message is no draft any more"


def test_a_half_chosen_building_survives_table_talk(server, browser, started_game, alice, bob):
    """Alice has touched a card, a lot and a piece when Bob's message comes in:
    the page shows the message, and her building is still chosen, ready to go up."""
    alices = open_game(signed_in(browser, server, alice), server, started_game)
    bobs = open_game(signed_in(browser, server, bob), server, started_game)
    rng = random.Random(4)
    for _ in range(10):  # the selections first: alice's by her page, bob's by the API
        started_game.refresh_from_db()
        if to_act(started_game) == bob:
            wait_for_version(alices, move_by_api(server, started_game, bob))
        elif alices.get_by_test_id("select-form").count():
            select_by_form(alices, started_game, rng)
        else:
            break
    alices.evaluate("window.notReloaded = true")
    choose_a_card_and_a_lot(alices, rng)
    alices.get_by_test_id("build-piece").last.check()
    card = alices.locator("#place-form input[name=card]:checked").get_attribute("id")
    lot = alices.locator("[data-testid=board] g.lot.chosen").get_attribute("aria-label")
    pieces = alices.get_by_test_id("build-piece").count()

    bobs.get_by_test_id("talk-text").fill("Take your time.")
    with bobs.expect_navigation():
        bobs.get_by_test_id("talk-text").press("Enter")
    alices.get_by_test_id("talk-messages").get_by_text("Take your time.").wait_for(timeout=PAGE_TIMEOUT_MS)
    assert alices.evaluate("window.notReloaded") is True
    assert alices.locator("#place-form input[name=card]:checked").get_attribute("id") == card
    assert alices.locator("[data-testid=board] g.lot.chosen").get_attribute("aria-label") == lot
    assert alices.get_by_test_id("build-piece").count() == pieces
    assert alices.get_by_test_id("build-piece").last.is_checked()
    before = started_game.version
    with alices.expect_navigation():
        alices.get_by_test_id("build-confirm").click()
    started_game.refresh_from_db()
    assert started_game.version == before + 1, "her building went up as chosen"
