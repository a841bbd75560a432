"""A test across servers: its authority, a host's enrolment by a one-time bundle and code, removal, and the keys kept in
the credential store and in no file."""

from __future__ import annotations

import json
import ssl

import pytest

from engine.hosts.enrolment import EnrolmentError, one_time_code
from engine.hosts.membership import AGENT_FILE, enrol, membership_in
from engine.hosts.roster import ROSTER_FILE, Roster, RosterError
from engine.hosts.tls import context
from engine.hosts.trust import fingerprint, issue, new_authority, serial_of


def _no_key_in(folder, *keys_pem: str) -> None:
    """No file under `folder` holds any of the private keys (their PEM bodies)."""
    bodies = ["".join(pem.strip().splitlines()[1:-1])[:60] for pem in keys_pem]
    for path in folder.rglob("*"):
        if path.is_file():
            text = "".join(path.read_text(errors="replace").split())
            assert not any(body in text for body in bodies), f"a private key in {path}"
            assert "PRIVATE KEY" not in path.read_text(errors="replace"), path


def test_a_host_enrols_with_its_bundle_and_code_and_keeps_its_key_in_the_credential_store_alone(tmp_path, keys):
    roster = Roster(tmp_path / "controller" / "hosts", keys)
    (tmp_path / "share").mkdir()
    enrolled = roster.add("mbx1.contoso.com", "tls://ctl.contoso.com:8786", tmp_path / "share")
    assert enrolled.bundle.name == "mbx1.contoso.com.jwenrol" and len(enrolled.code) == 19
    assert enrolled.code not in enrolled.bundle.read_text()  # the code is shown, never written

    with pytest.raises(EnrolmentError, match="the code does not open this bundle"):
        enrol(enrolled.bundle, one_time_code(), tmp_path / "agent", keys)
    assert enrolled.bundle.exists() and membership_in(tmp_path / "agent") is None  # a wrong code changes nothing

    typed = enrolled.code.lower().replace("-", " ")  # as an engineer may type it
    membership = enrol(enrolled.bundle, typed, tmp_path / "agent", keys)
    assert not enrolled.bundle.exists()  # deleted once its key is in the credential store
    assert (membership.host, membership.controller) == ("mbx1.contoso.com", "tls://ctl.contoso.com:8786")
    identity = membership.identity(keys)
    subject = identity.certificate.subject.rfc4514_string()
    assert identity.fingerprint == enrolled.fingerprint and "CN=mbx1.contoso.com" in subject and "OU=agent" in subject
    assert membership_in(tmp_path / "agent") == membership and (tmp_path / "agent" / AGENT_FILE).exists()
    _no_key_in(tmp_path, identity.key_pem, roster.authority.key_pem, roster.controller.key_pem)

    again = Roster(tmp_path / "controller" / "hosts", keys)  # the controller, started again, keeps its authority
    assert again.authority_fingerprint == roster.authority_fingerprint and [h.name for h in again.hosts()] == [
        "mbx1.contoso.com"]


def test_a_bundle_is_written_over_only_when_it_is_jetwises(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    mine = tmp_path / "mbx1.jwenrol"
    mine.write_text("the engineer's own notes")
    with pytest.raises(RosterError, match="exists and is not a Jetwise enrolment bundle"):
        roster.add("mbx1", "tls://ctl:8786", tmp_path)
    assert mine.read_text() == "the engineer's own notes" and roster.hosts() == []
    mine.unlink()
    first = roster.add("mbx1", "tls://ctl:8786", tmp_path)
    again = roster.add("mbx1", "tls://ctl:8786", tmp_path)  # its own bundle, written again with a new code
    assert first.bundle == again.bundle and first.code != again.code
    assert enrol(again.bundle, again.code, tmp_path / "agent", keys).host == "mbx1"


def test_a_removed_or_re_enrolled_hosts_certificate_is_listed_as_revoked(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    first = roster.add("mbx1", "tls://ctl:8786", tmp_path)
    second = roster.add("mbx2", "tls://ctl:8786", tmp_path)
    renewed = roster.add("mbx1", "tls://ctl:8786", tmp_path)  # enrolled again: its old certificate is revoked
    assert [h.name for h in roster.hosts()] == ["mbx2", "mbx1"] and renewed.fingerprint != first.fingerprint
    roster.remove("mbx2")
    with pytest.raises(RosterError, match="mbx2 is not enrolled; enrolled: mbx1"):
        roster.remove("mbx2")
    from cryptography import x509

    revoked = x509.load_pem_x509_crl(roster.revoked_pem().encode())
    certs = {h.name: h.cert_pem for h in roster.file.hosts}
    serials = {entry.serial_number for entry in revoked}
    assert serials == {serial_of(roster.file.hosts[0].cert_pem), serial_of(certs["mbx2"])}
    assert second.fingerprint == fingerprint(certs["mbx2"])
    saved = json.loads((tmp_path / "hosts" / ROSTER_FILE).read_text())
    assert [h["removed_utc"] is not None for h in saved["hosts"]] == [True, True, False]


def test_a_context_accepts_only_its_authoritys_certificates_not_revoked(tmp_path):
    authority, other = new_authority("a"), new_authority("b")
    controller = issue(authority, "controller", "controller")
    member, removed, stranger = issue(authority, "mbx1", "agent"), issue(authority, "mbx2", "agent"), issue(other, "x", "agent")
    from engine.hosts.trust import revoked_list

    crl = revoked_list(authority, [serial_of(removed.cert_pem)])
    server = context(ssl.Purpose.CLIENT_AUTH, authority.cert_pem, controller, crl)
    outcomes = {}
    for name, identity, trusts in (("member", member, authority), ("removed", removed, authority),
                                   ("stranger", stranger, other)):
        client = context(ssl.Purpose.SERVER_AUTH, trusts.cert_pem, identity, None)
        outcomes[name] = _handshake(server, client)
    assert outcomes["member"] == "ok"
    assert "revoked" in outcomes["removed"]
    assert outcomes["stranger"] != "ok"


def _handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> str:
    """Both sides of a TLS handshake in memory: "ok", or the first error either side met."""
    c_in, c_out, s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    c = client.wrap_bio(c_in, c_out, server_side=False)
    s = server.wrap_bio(s_in, s_out, server_side=True)
    done = {"c": False, "s": False}
    for _ in range(20):
        for name, side in (("c", c), ("s", s)):
            if not done[name]:
                try:
                    side.do_handshake()
                    done[name] = True
                except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    pass
                except ssl.SSLError as exc:
                    return _why(exc)
            s_in.write(c_out.read())
            c_in.write(s_out.read())
        if all(done.values()):
            try:  # TLS 1.3: a refused client certificate arrives after the client's handshake
                s.write(b"x")
                c_in.write(s_out.read())
                c.read(1)
            except ssl.SSLError as exc:
                return _why(exc)
            return "ok"
    return "no handshake"


def _why(exc: ssl.SSLError) -> str:
    return f"{exc.reason} {getattr(exc, 'verify_message', '')}".lower().replace("_", " ")
