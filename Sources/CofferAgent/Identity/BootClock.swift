import Glibc

/// The clock of a process's start time (`/proc/PID/stat` field 22): `CLOCK_BOOTTIME`, in clock
/// ticks (`sysconf(_SC_CLK_TCK)`, 100 a second), which a process's start time never exceeds
/// while the moment is later.
enum BootClock {
    private static let ticksPerSecond = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))

    /// Ticks since boot, rounded down as the kernel rounds start times.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return UInt64(time.tv_sec) * ticksPerSecond + UInt64(time.tv_nsec) * ticksPerSecond / 1_000_000_000
    }
}
