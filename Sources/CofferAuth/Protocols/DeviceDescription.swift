import Glibc

/// The device as the registrations describe it: the operating system and the machine, from
/// `uname(2)` (for example `Linux` and `x86_64`).
enum DeviceDescription {
    static let operatingSystem = field(\.sysname) ?? "Linux"
    static let machine = field(\.machine) ?? "unknown"

    private static func field<T>(_ path: KeyPath<utsname, T>) -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        let text = withUnsafeBytes(of: names[keyPath: path]) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? nil : text
    }
}
