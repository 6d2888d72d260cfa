import Glibc

/// The process's limit on open files (`RLIMIT_NOFILE`).
package enum OpenFileLimit {
    /// Raises the soft limit to the hard one, for a server that holds many connections (a soft
    /// limit of 1024 is common; the hard one is what the administrator allows). Returns the soft
    /// limit in force afterwards.
    @discardableResult
    package static func raiseToHardLimit() -> Int {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
