import CofferTestSupport
import Foundation
import XCTest
@testable import CofferAgent
import Coffer

/// The sandbox and service parts of an identity, from the files that name them
/// (Fixtures/Identity: `/proc/PID/cgroup` of systemd services, scopes and snaps, and Flatpak's
/// `.flatpak-info`, as those systems write them).
final class SandboxIdentityTests: XCTestCase {
    func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: packageRoot.appendingPathComponent("Tests/CofferAgentTests/Fixtures/Identity/\(name)")))
    }

    func unitAndSnap(_ name: String) throws -> (unit: String?, snap: String?) {
        let path = try XCTUnwrap(SandboxIdentity.cgroupPath(cgroup: try fixture(name)), name)
        return (SandboxIdentity.serviceUnit(cgroupPath: path), SandboxIdentity.snap(cgroupPath: path))
    }

    /// A process in a systemd service (the user's, the system's, on the unified, hybrid or
    /// legacy hierarchy) is in that unit; one in a scope (a login session, a desktop app
    /// launched by GNOME) is in none, since scopes carry ids that change with every run.
    func testServiceUnitsAreReadAndScopesAreNot() throws {
        XCTAssertEqual(try unitAndSnap("cgroup-v2-user-service").unit, "backup.service")
        XCTAssertEqual(try unitAndSnap("cgroup-hybrid-system-service").unit, "nginx.service")
        XCTAssertEqual(try unitAndSnap("cgroup-v1-legacy-service").unit, "cron.service")
        XCTAssertNil(try unitAndSnap("cgroup-session-scope").unit)
        XCTAssertNil(try unitAndSnap("cgroup-app-scope").unit)
        XCTAssertNil(SandboxIdentity.cgroupPath(cgroup: Array("4:memory:/x\n".utf8)), "no systemd line, no path")
    }

    /// A snap's app (a scope) and daemon (a service) both name their snap.
    func testSnapsAreReadFromTheirCgroup() throws {
        XCTAssertEqual(try unitAndSnap("cgroup-snap-scope").snap, "snap:firefox")
        XCTAssertEqual(try unitAndSnap("cgroup-snap-service").snap, "snap:lxd")
        XCTAssertEqual(try unitAndSnap("cgroup-snap-service").unit, "snap.lxd.daemon.service")
        XCTAssertNil(try unitAndSnap("cgroup-v2-user-service").snap)
        XCTAssertNil(SandboxIdentity.snap(cgroupPath: "/snap.x"), "too few parts")
    }

    /// The app id is `name=` of the `[Application]` group only; a runtime's `.flatpak-info`
    /// names no app; keys and values are trimmed as GLib's key files are.
    func testFlatpakAppIdsAreReadFromTheApplicationGroup() throws {
        XCTAssertEqual(SandboxIdentity.flatpakApp(info: try fixture("flatpak-info")), "flatpak:org.gnome.Calculator")
        XCTAssertNil(SandboxIdentity.flatpakApp(info: try fixture("flatpak-info-runtime")))
        XCTAssertNil(SandboxIdentity.flatpakApp(info: try fixture("flatpak-info-name-elsewhere")), "another group's name, a group with spaces")
        XCTAssertEqual(SandboxIdentity.flatpakApp(info: Array("[Application]\r\n  name = org.example.A \r\n".utf8)), "flatpak:org.example.A")
        XCTAssertNil(SandboxIdentity.flatpakApp(info: Array("[Application]\nname=\n".utf8)))
    }
}
