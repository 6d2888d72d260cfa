import CofferAgent
import Coffer
import Glibc

/// Who is behind each unique name that calls the provider (``CofferAgent/Caller``), worked out
/// at its first call from the bus's `GetConnectionCredentials` (`ProcessID`, `UnixUserID`; dbus
/// 1.14 has no `ProcessFD`) and kept until the name leaves the bus. Lives on the main-loop
/// thread.
final class BusCallers {
    /// Unique names remembered; past this, the oldest are forgotten (and worked out again if
    /// they call again).
    static let capacity = 4096

    private let bus: BusConnection
    private let resolver: CallerResolver
    private var known: [String: (result: Result<Caller, CallerResolutionError>, order: UInt64)] = [:]
    private var counter: UInt64 = 0

    init(bus: BusConnection, resolver: CallerResolver = CallerResolver()) {
        self.bus = bus
        self.resolver = resolver
    }

    /// The caller behind `uniqueName`; `nil` when it cannot be told (``failure(of:)`` says why).
    /// Once the process that connected has ended, the name has no caller for good, although
    /// its connection may live on in another process (a child): the bus names that first
    /// process's PID, which a later process may be given.
    func caller(of uniqueName: String) -> Caller? {
        if let known = known[uniqueName] {
            guard case .success(let caller) = known.result else { return nil }
            if caller.isAlive { return caller }
            self.known[uniqueName]?.result = .failure(.ended)
            return nil
        }
        counter += 1
        known[uniqueName] = (resolve(uniqueName), counter)
        if known.count > Self.capacity, let oldest = known.min(by: { $0.value.order < $1.value.order })?.key { known[oldest] = nil }
        return try? known[uniqueName]?.result.get()
    }

    /// Whether ``caller(of:)`` has worked out `uniqueName` already (and would not ask the bus).
    func isKnown(_ uniqueName: String) -> Bool {
        known[uniqueName] != nil
    }

    /// Why `uniqueName` has no caller, once ``caller(of:)`` found none.
    func failure(of uniqueName: String) -> CallerResolutionError? {
        guard case .failure(let error) = known[uniqueName]?.result else { return nil }
        return error
    }

    /// Forgets a name that left the bus.
    func forget(_ uniqueName: String) {
        known[uniqueName] = nil
    }

    private func resolve(_ uniqueName: String) -> Result<Caller, CallerResolutionError> {
        guard let credentials = try? bus.callBus("GetConnectionCredentials", [.string(uniqueName)]).child(0).propertyMap,
              let pid = credentials["ProcessID"], pid.isOfType("u"), let uid = credentials["UnixUserID"], uid.isOfType("u")
        else { return .failure(.noPeerProcess("the bus gave no process for \(uniqueName)")) }
        return Result { () throws(CallerResolutionError) in try resolver.resolve(pid: pid_t(bitPattern: pid.uint32), uid: uid.uint32) }
    }
}
