import Coffer
import CofferAgent
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// The provider serves only on the user's own bus (docs/secret-service.md, "The security
/// model"): a socket another user owns, a daemon another user runs (an abstract socket has no
/// owner to check, its daemon's user is checked once connected), and addresses that start a
/// program, listen, or reach every local user are refused with a message that says why.
final class OwnBusTests: XCTestCase {
    private let folder = TemporaryFolder()

    private func start(on address: String) throws(ProviderStartError) {
        var configuration = SecretServiceProvider.Configuration(loginVault: folder.file("login.vault"))
        configuration.busAddress = address
        let provider = SecretServiceProvider(configuration: configuration, keeper: HeldVaults(idleTimeout: 60))
        try provider.start()
        provider.stop()
    }

    /// Which refusal `address` gets (`nil`: the provider started).
    private func refusal(of address: String) -> String? {
        do throws(ProviderStartError) {
            try start(on: address)
            return nil
        } catch .notOwnBus(let message) {
            return message
        } catch {
            return "another error: \(error)"
        }
    }

    /// A bus whose socket and daemon are another user's (uid 65534), admitting every user, at a
    /// path and at an abstract name: refused, saying whose it is. The user's own bus is served.
    func testABusOfAnotherUserIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run a bus as uid 65534") }
        let theirs = try PrivateBus(users: PrivateBus.Users(everyone: true, daemon: 65534))
        let message = try XCTUnwrap(refusal(of: theirs.address))
        XCTAssertTrue(message.contains("belongs to uid 65534, not to this user (uid 0)"), message)

        let abstract = try PrivateBus(users: PrivateBus.Users(everyone: true, daemon: 65534), abstract: true)
        let abstractMessage = try XCTUnwrap(refusal(of: abstract.address))
        XCTAssertTrue(abstractMessage.contains("the session bus is run by uid 65534, not by this user (uid 0)"), abstractMessage)

        let own = try PrivateBus()
        XCTAssertNil(refusal(of: own.address))
        let ownAbstract = try PrivateBus(abstract: true)
        XCTAssertNil(refusal(of: ownAbstract.address), "an abstract socket of the user's own daemon")
    }

    /// Addresses that start a program (`autolaunch:`, `unixexec:`), ask another service
    /// (`launchd:`, `systemd:`), listen (`unix:dir=`, `unix:tmpdir=`, `unix:runtime=`), reach every
    /// local user (`tcp:`, `nonce-tcp:`), or name no socket of the user's, in any entry of a list:
    /// refused before anything connects, each with its reason.
    func testAddressesThatAreNotTheUsersOwnBusAreRefused() throws {
        let regularFile = folder.file("not-a-socket")
        try Data().write(to: regularFile)
        let own = try PrivateBus()
        let cases: [(String, String)] = [
            ("autolaunch:", "starts a program or asks another service where the bus is"),
            ("unixexec:path=/bin/sh,argv1=-c,argv2=true", "starts a program or asks another service where the bus is"),
            ("launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET", "starts a program or asks another service where the bus is"),
            ("systemd:", "starts a program or asks another service where the bus is"),
            ("tcp:host=127.0.0.1,port=1", "is a TCP bus, which every local user can reach"),
            ("nonce-tcp:host=127.0.0.1,port=1,noncefile=/tmp/n", "is a TCP bus, which every local user can reach"),
            ("unix:tmpdir=/tmp", "is one a bus listens on, not one to connect to"),
            ("unix:dir=/tmp", "is one a bus listens on, not one to connect to"),
            ("unix:runtime=yes", "is one a bus listens on, not one to connect to"),
            ("unix:path=\(regularFile.path)", "which is not a socket"),
            ("unix:path=\(folder.file("missing").path)", "cannot reach the session bus socket"),
            ("\(own.address);autolaunch:", "starts a program or asks another service where the bus is"),
            ("carrier-pigeon:coop=1", "has a transport the Secret Service does not use"),
            ("no colon", "is not a D-Bus address"),
            ("", "the session bus address is empty"),
        ]
        for (address, reason) in cases {
            XCTAssertTrue(OwnBusAddress.refusal(of: address)?.contains(reason) == true, "\(address): \(String(describing: OwnBusAddress.refusal(of: address)))")
        }
        XCTAssertNil(OwnBusAddress.refusal(of: own.address))
        XCTAssertNil(OwnBusAddress.refusal(of: own.address.replacingOccurrences(of: "/", with: "%2f") + ",guid=0123"), "escaped, with a guid")
    }
}
