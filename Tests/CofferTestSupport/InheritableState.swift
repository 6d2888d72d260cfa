import Foundation
import Glibc

/// What a test gives this process that a child could inherit: environment variables, and open
/// descriptors without close-on-exec. ``restore()`` (in `tearDown`) undoes both.
public final class InheritableState {
    private var savedVariables: [String: String?] = [:]
    private var descriptors: [Int32] = []

    public init() {}

    /// Sets a variable of this process until ``restore()``.
    public func setVariable(_ name: String, _ value: String) {
        if savedVariables[name] == nil { savedVariables[name] = .some(ProcessInfo.processInfo.environment[name]) }
        setenv(name, value, 1)
    }

    /// Opens `/dev/null` as a descriptor a child would inherit (no close-on-exec), above 2,
    /// until ``restore()``.
    @discardableResult
    public func openInheritableDescriptor() -> Int32 {
        let descriptor = open("/dev/null", O_RDONLY)
        precondition(descriptor > 2, "descriptors 0, 1 and 2 are open in a test process")
        descriptors.append(descriptor)
        return descriptor
    }

    public func restore() {
        for (name, value) in savedVariables {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        savedVariables = [:]
        descriptors.forEach { close($0) }
        descriptors = []
    }
}
