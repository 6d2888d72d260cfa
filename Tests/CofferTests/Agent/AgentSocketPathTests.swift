import CofferAgentWire
import CofferTestSupport
import Dispatch
import Foundation
import Glibc
import XCTest
@testable import Coffer

final class AgentSocketPathTests: XCTestCase {
    let folder = TemporaryFolder()

    /// A socket the agent listens on (its own, or a share's) is 0600 from its bind, and making
    /// one never changes the process's umask: 8 threads making 200 sockets each leave the umask
    /// as it was, and every socket was 0600. Before, each bind set the umask to 0177 and back, and
    /// two at once (shares made together) could leave it at 0177 for good: the agent's folders
    /// made later were 0600, and its children inherited it (found by review on 2026-11-29).
    func testListeningNeverChangesTheUmask() throws {
        let before = umask(0o022)
        defer { umask(before) }
        let failures = ErrorLog(), root = folder.url.path
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<200 {
                let path = "\(root)/s\(thread)-\(index)"
                do {
                    let descriptor = try AgentSocket.listen(path: path)
                    var info = stat()
                    if stat(path, &info) != 0 || info.st_mode & 0o777 != 0o600 {
                        failures.add("\(path): mode \(String(info.st_mode & 0o777, radix: 8))")
                    }
                    close(descriptor)
                    unlink(path)
                } catch {
                    failures.add("\(path): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.entries, [])
        XCTAssertEqual(umask(0o022), 0o022, "the umask is as it was")
    }

    /// A umask that takes the owner's own bits (0277) still gives a 0600 socket the user can
    /// connect to.
    func testTheSocketIs0600WhateverTheUmask() throws {
        let path = folder.file("s").path
        let before = umask(0o277)
        defer { umask(before) }
        let descriptor = try AgentSocket.listen(path: path)
        defer { close(descriptor) }
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }
}
