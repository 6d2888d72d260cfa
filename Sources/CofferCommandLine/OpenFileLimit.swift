import Glibc

/// The process's limit on open files, which a listener that other local users can connect to
/// must not run into: the default soft limit (1,024) is far below the hard one.
package enum OpenFileLimit {
    /// Raises the soft limit to the hard limit; returns the limit now in force.
    @discardableResult
    package static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
