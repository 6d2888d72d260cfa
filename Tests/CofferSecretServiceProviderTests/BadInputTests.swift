import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// Calls that break the rules get typed D-Bus errors, and never crash, hang or change what the
/// provider holds: wrong signatures, unknown paths, another connection's session, bad
/// Diffie-Hellman values, huge secrets and attributes, too many sessions, 150 connections at
/// once (a jeepney client sends them: Fixtures/bad_input.py).
final class BadInputTests: XCTestCase {
    func testBadCallsGetTypedErrors() throws {
        let fixture = try ProviderFixture()
        let id = ItemID.genericPassword(service: "kept.example", account: "ada")
        try fixture.login.set(Data("kept".utf8), for: id, options: ItemOptions(label: "Kept"))
        let path = ObjectPaths.item(try fixture.login.rowKey(for: id), in: "login")
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("bad_input.py").path, path])
        XCTAssertEqual(output.status, 0, output.stderrText)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
        let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs", unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        let expected: [String: String] = [
            "open_session_wrong_signature": invalidArgs,
            "search_wrong_signature": invalidArgs,
            "create_item_wrong_signature": invalidArgs,
            "unknown_method": unknownMethod,
            "unknown_collection": "org.freedesktop.Secret.Error.NoSuchObject",
            "unknown_alias": "org.freedesktop.Secret.Error.NoSuchObject",
            "unknown_item": "org.freedesktop.Secret.Error.NoSuchObject",
            "malformed_item_path": unknownMethod,
            "unknown_property": invalidArgs,
            "read_only_property": invalidArgs,
            "property_of_wrong_type": invalidArgs,
            "unknown_algorithm": "org.freedesktop.DBus.Error.NotSupported",
            "dh_input_not_bytes": invalidArgs,
            "dh_input_zero": invalidArgs,
            "dh_input_too_long": invalidArgs,
            "get_secret_with_own_session": "ok",
            "get_secret_with_another_connections_session": "org.freedesktop.Secret.Error.NoSession",
            "get_secrets_with_another_connections_session": "org.freedesktop.Secret.Error.NoSession",
            "close_another_connections_session": "org.freedesktop.Secret.Error.NoSession",
            "unknown_session": "org.freedesktop.Secret.Error.NoSession",
            "set_secret_with_another_connections_session": "org.freedesktop.Secret.Error.NoSession",
            "dh_secret_bad_iv": invalidArgs,
            "dh_secret_not_blocks": invalidArgs,
            "huge_secret": "org.freedesktop.DBus.Error.LimitsExceeded",
            "huge_attribute_value": "org.freedesktop.DBus.Error.LimitsExceeded",
            "many_attributes": "org.freedesktop.DBus.Error.LimitsExceeded",
            "huge_label": "org.freedesktop.DBus.Error.LimitsExceeded",
            "attributes_of_wrong_type": invalidArgs,
            "still_serving": "ok",
        ]
        for (name, error) in expected {
            XCTAssertEqual(results[name] as? String, error, name)
        }
        XCTAssertEqual(results["sessions_opened_before_refusal"] as? Int, SessionTable.perConnection - 2, "two were open already")
        XCTAssertEqual(results["crowd_sessions"] as? Int, 300, "150 connections at once, two sessions each")
        // The crowd left without closing its sessions: the provider forgot them all.
        let deadline = ContinuousClock.now + .seconds(20)
        while let open = fixture.provider.openSessionCount(), open > 0, ContinuousClock.now < deadline { usleep(20_000) }
        XCTAssertEqual(fixture.provider.openSessionCount(), 0)
        // Nothing the bad calls did changed the vault.
        XCTAssertEqual(try fixture.login.items(matching: .all).map(\.id), [id])
        XCTAssertEqual(try fixture.login.secret(for: id), Data("kept".utf8))
    }

    /// A session belongs to the connection that opened it and closes when that connection goes:
    /// the provider forgets every session of a client that left, without being told.
    func testSessionsCloseWithTheirConnection() throws {
        let fixture = try ProviderFixture()
        let script = """
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
            connection = open_dbus_connection(bus="SESSION")
            for algorithm, value in [("plain", ("s", ""))] * 3 + [("dh-ietf1024-sha256-aes128-cbc-pkcs7", ("ay", bytes([2])))] * 2:
                connection.send_and_get_reply(new_method_call(service, "OpenSession", "sv", (algorithm, value)))
            print("opened")
            input()
            """
        let client = try ChildProcess.start("/usr/bin/python3", ["-c", script], environment: fixture.environment, inputs: [0: nil])
        let deadline = ContinuousClock.now + .seconds(20)
        while fixture.provider.openSessionCount() != 5 {
            guard ContinuousClock.now < deadline else { return XCTFail("the client's sessions did not open") }
            usleep(20_000)
        }
        kill(client.pid, SIGKILL)
        _ = try client.wait(timeout: .seconds(10))
        while fixture.provider.openSessionCount() != 0 {
            guard ContinuousClock.now < deadline else { return XCTFail("the sessions stayed after their connection went") }
            usleep(20_000)
        }
    }
}
