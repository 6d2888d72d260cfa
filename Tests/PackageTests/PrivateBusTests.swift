import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// A private bus is ready when its socket accepts, not when its file appears: dbus-daemon binds
/// before it listens, and a client that connected in between was refused ("Connection refused",
/// seen once in `BusCallersTests` under AddressSanitizer).
final class PrivateBusTests: XCTestCase {
    /// A socket that is bound but not listening does not accept; once it listens, it does.
    func testABoundSocketAcceptsOnlyOnceItListens() throws {
        let folder = TemporaryFolder()
        let path = folder.file("bus").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "the file is there")
        XCTAssertFalse(PrivateBus.accepts(path), "bound, not listening: a client is refused")
        XCTAssertEqual(listen(descriptor, 4), 0)
        XCTAssertTrue(PrivateBus.accepts(path))
    }

    /// A bus is ready when it is made: a client connects at once.
    func testABusAcceptsWhenItIsMade() throws {
        let bus = try PrivateBus()
        XCTAssertTrue(PrivateBus.accepts(String(bus.address.dropFirst("unix:path=".count))))
    }
}
