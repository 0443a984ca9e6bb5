"""The SSRF guard: every refused form of address is refused at registration
(422 naming the reason) with a stub resolver, and again at delivery."""

from __future__ import annotations

import ipaddress

import pytest

from webhooks import delivery, services, ssrf
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhooks"


def register(client, url: str):
    return client.post(URL, {"url": url, "event_types": ["game.your_turn"]}, format="json")


def assert_refused(response, reason: str) -> None:
    assert response.status_code == 422, response.content
    body = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert body["code"] == "webhook_url_refused"
    assert body["field"] == "url"
    assert body["reason"] == reason, body


@pytest.fixture
def client(client_for, alice):
    return client_for(alice)


def test_a_public_https_host_is_accepted(client, resolver):
    response = register(client, "https://hooks.example.com/manhattan")
    assert response.status_code == 201, response.content
    assert resolver.asked == ["hooks.example.com"]


@pytest.mark.parametrize(
    ("host", "kind"),
    [
        ("127.0.0.1", "loopback"),
        ("[::1]", "loopback"),
        ("10.0.0.5", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("[fd12:3456::1]", "private"),
        ("169.254.1.1", "link-local"),
        ("[fe80::1]", "link-local"),
        ("[fec0::1]", "site-local"),  # deprecated, but the ipaddress tables do not call it private
        ("[feff:ffff::1]", "site-local"),
        ("[fc00::1]", "private"),
        ("[2001:db8::1]", "private"),  # documentation
        ("[4000::1]", "reserved"),
        ("[100::1]", "reserved"),  # discard-only
        ("224.0.0.1", "multicast"),
        ("[ff02::1]", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),
        ("[::]", "unspecified"),
        ("100.64.0.1", "not globally routable"),
        ("169.254.169.254", "cloud metadata"),
        ("[fd00:ec2::254]", "cloud metadata"),
        ("168.63.129.16", "cloud metadata"),
        ("100.100.100.200", "cloud metadata"),
    ],
)
def test_an_address_literal_that_is_not_public_is_refused(client, host, kind):
    response = register(client, f"https://{host}/hook")
    assert_refused(response, "address_refused")
    assert kind in response.json()["detail"]


@pytest.mark.parametrize(
    ("host", "embedded"),
    [
        ("[::ffff:127.0.0.1]", "loopback"),  # IPv4-mapped
        ("[::ffff:7f00:1]", "loopback"),  # the same, in hex
        ("[::ffff:169.254.169.254]", "cloud metadata"),
        ("[::ffff:10.0.0.1]", "private"),
        ("[::127.0.0.1]", "loopback"),  # IPv4-compatible
        ("[2002:7f00:1::]", "loopback"),  # 6to4 of 127.0.0.1
        ("[2002:a9fe:a9fe::1]", "cloud metadata"),  # 6to4 of 169.254.169.254
        ("[2002:c0a8:101::1]", "private"),  # 6to4 of 192.168.1.1
        ("[64:ff9b::7f00:1]", "loopback"),  # NAT64 of 127.0.0.1
        ("[64:ff9b::10.0.0.1]", "private"),
    ],
)
def test_an_ipv6_address_carrying_a_refused_ipv4_address_is_refused(client, host, embedded):
    response = register(client, f"https://{host}/hook")
    assert_refused(response, "address_refused")
    assert embedded in response.json()["detail"]


def test_an_ipv4_mapped_address_of_a_public_host_is_refused_too(client):
    response = register(client, "https://[::ffff:93.184.216.34]/hook")
    assert_refused(response, "address_refused")
    assert "IPv4-mapped" in response.json()["detail"]


@pytest.mark.parametrize(
    ("host", "read_as"),
    [
        ("2130706433", "127.0.0.1"),  # decimal
        ("0x7f000001", "127.0.0.1"),  # one hex number
        ("017700000001", "127.0.0.1"),  # one octal number
        ("0177.0.0.1", "127.0.0.1"),  # octal part
        ("0x7f.1", "127.0.0.1"),  # hex, short
        ("127.1", "127.0.0.1"),  # short
        ("127.0.1", "127.0.0.1"),
        ("0x7f.0x0.0x0.0x1", "127.0.0.1"),
        ("127.0.0.01", "127.0.0.1"),  # a leading zero
        ("3232235777", "192.168.1.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
    ],
)
def test_a_host_written_as_a_number_in_an_unusual_form_is_refused(client, resolver, host, read_as):
    response = register(client, f"https://{host}/hook")
    assert_refused(response, "numeric_host")
    assert read_as in response.json()["detail"]
    assert resolver.asked == []  # never handed to a resolver, which would read it as an address


def test_a_number_in_an_unusual_form_is_refused_even_when_it_means_a_public_address(client):
    assert_refused(register(client, "https://1572395042/hook"), "numeric_host")  # 93.184.216.34


@pytest.mark.parametrize(
    ("answers", "shown"),
    [
        (["10.1.2.3"], "10.1.2.3"),
        (["127.0.0.1"], "127.0.0.1"),
        (["169.254.169.254"], "169.254.169.254"),
        (["::ffff:10.0.0.1"], "::ffff:a00:1"),
        (["93.184.216.34", "127.0.0.1"], "127.0.0.1"),  # every address is checked, not only the first
        (["2606:2800:220:1:248:1893:25c8:1946", "fe80::1"], "fe80::1"),
    ],
)
def test_a_name_that_resolves_to_a_refused_address_is_refused(client, resolver, answers, shown):
    resolver.answers["sneaky.example.com"] = answers
    response = register(client, "https://sneaky.example.com/hook")
    assert_refused(response, "address_refused")
    assert shown in response.json()["detail"]


def test_an_international_name_is_resolved_in_its_ascii_form(client, resolver):
    resolver.answers["xn--bcher-kva.example"] = ["93.184.216.34"]
    assert register(client, "https://bücher.example/hook").status_code == 201
    assert resolver.asked == ["xn--bcher-kva.example"]


def test_a_name_that_does_not_resolve_is_refused(client):
    assert_refused(register(client, "https://nowhere.example.com/hook"), "unresolvable")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/hook", "scheme_refused"),
        ("ftp://hooks.example.com/hook", "scheme_refused"),
        ("file:///etc/passwd", "scheme_refused"),
        ("hooks.example.com/hook", "scheme_refused"),
        ("https://user:secret@hooks.example.com/hook", "credentials_in_url"),
        ("https://hooks.example.com@127.0.0.1/hook", "credentials_in_url"),
        ("https:///hook", "bad_url"),
        ("https://hooks.example.com:99999/hook", "bad_url"),
        ("https://%31%32%37.0.0.1/hook", "bad_url"),
        ("https://exa_mple.com/hook", "bad_url"),
        ("https://[::1/hook", "bad_url"),
    ],
)
def test_a_url_of_the_wrong_form_is_refused(client, url, reason):
    assert_refused(register(client, url), reason)


def test_http_is_accepted_only_where_the_setting_allows_it(client, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    assert register(client, "http://hooks.example.com/hook").status_code == 201


def test_the_allow_list_lets_a_private_receiver_through(client, settings, resolver):
    resolver.answers["hooks.internal"] = ["10.20.30.40"]
    assert_refused(register(client, "https://hooks.internal/hook"), "address_refused")
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    assert register(client, "https://hooks.internal/hook").status_code == 201
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    settings.WEBHOOK_ALLOWED_HOSTS = ["hooks.internal"]
    assert register(client, "https://hooks.internal/hook").status_code == 201


def test_changing_the_url_is_checked_the_same_way(client):
    created = register(client, "https://hooks.example.com/hook").json()
    response = client.patch(f"{URL}/{created['id']}", {"url": "https://0x7f.1/hook"}, format="json")
    assert_refused(response, "numeric_host")


def test_the_url_is_checked_again_at_delivery(alice, receiver, resolver, settings, broker):
    """Registered while its name pointed at a public address; by the time of the
    delivery the name points at the receiver on loopback: nothing is sent."""
    resolver.answers["rebinding.example.com"] = ["93.184.216.34"]
    settings.WEBHOOK_ALLOWED_NETWORKS = []  # the receiver's address is not allowed this time
    new = services.create_endpoint(
        owner=alice, url=f"http://rebinding.example.com:{receiver.port}/hook", event_types=["game.your_turn"]
    )
    resolver.answers["rebinding.example.com"] = ["127.0.0.1"]
    test = services.send_test_event(endpoint=new.endpoint)

    assert delivery.deliver(test.pk) is False
    test.refresh_from_db()
    assert test.status == Delivery.Status.FAILED
    assert "address_refused" in test.last_error
    assert "127.0.0.1" in test.last_error
    assert receiver.requests == []


def test_the_connection_goes_to_the_checked_address_and_never_resolves_again(alice, receiver, resolver, endpoint_for):
    """``receiver.test`` exists only in the stub resolver: the request can reach
    the receiver only through the address checked, with the name as Host."""
    new = endpoint_for(alice)
    resolver.asked.clear()
    test = services.send_test_event(endpoint=new.endpoint)
    assert delivery.deliver(test.pk) is True
    assert resolver.asked == ["receiver.test"]
    assert receiver.requests[0].headers["host"] == f"receiver.test:{receiver.port}"


@pytest.mark.parametrize("first", range(0, 0x10000, 0x0400))
def test_an_ipv6_address_outside_the_global_unicast_range_is_never_accepted(first):
    """Every /6 of the IPv6 space: only 2000::/3 may hold a public address."""
    address = ipaddress.IPv6Address(f"{first:x}:1234:5678::9")
    if 0x2000 <= first < 0x4000:
        return
    assert ssrf.refusal(address) is not None, address


def test_refusal_names_the_reason_for_each_kind_of_address():
    import ipaddress

    assert ssrf.refusal(ipaddress.ip_address("93.184.216.34")) is None
    assert ssrf.refusal(ipaddress.ip_address("2606:2800:220:1:248:1893:25c8:1946")) is None
    assert ssrf.refusal(ipaddress.ip_address("2002:5db8:d822::1")) is None  # 6to4 of a public address
    assert ssrf.refusal(ipaddress.ip_address("::ffff:127.0.0.1")) == (
        "a loopback address (127.0.0.1) inside an IPv4-mapped IPv6 address"
    )
