@testable import CofferAuth
import Foundation
import XCTest

/// The device authorization reply (RFC 8628 §3.2), parsed from the bytes a provider sends.
final class DeviceAuthorizationTests: XCTestCase {
    private func reply(interval: String?) -> HTTPReply {
        let body = #"{"device_code":"d","user_code":"U-1","verification_uri":"https://id.example/device","expires_in":600"#
            + (interval.map { #","interval":\#($0)"# } ?? "") + "}"
        return HTTPReply(status: 200, headers: [(name: "Content-Type", value: "application/json")], body: Data(body.utf8))
    }

    /// An `interval` of 0 (or under 5 s, or none) polls every 5 s, RFC 8628's default, instead
    /// of without pause; a provider on loopback (tests, local development) may go down to 1 s;
    /// a longer interval is kept.
    func testTheIntervalIsFlooredAtFiveSeconds() throws {
        let remote = URL(string: "https://id.example/device_authorization")!
        let loopback = URL(string: "http://127.0.0.1:8080/device_authorization")!
        let now = Date()
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: "0"), from: remote, now: now).interval, .seconds(5))
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: "2"), from: remote, now: now).interval, .seconds(5))
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: nil), from: remote, now: now).interval, .seconds(5))
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: "12"), from: remote, now: now).interval, .seconds(12))
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: "0"), from: loopback, now: now).interval, .seconds(1))
        XCTAssertEqual(try DeviceAuthorization.parse(reply(interval: "0.2"), from: loopback, now: now).interval, .seconds(1))
    }
}
