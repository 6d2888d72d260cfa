import Glibc

/// Descriptors 0, 1 and 2 as the process found them.
package enum StandardDescriptors {
    /// Opens /dev/null on each of 0, 1 and 2 that is closed, so that no file opened later takes
    /// its number and receives the process's output; returns those that were closed.
    package static func holdClosed() -> Set<Int32> {
        var closed: Set<Int32> = []
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            closed.insert(fd)
            let placeholder = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if placeholder >= 0, placeholder != fd {
                dup2(placeholder, fd)
                close(placeholder)
            }
        }
        return closed
    }

    /// `closed` as the bits `1 << fd`, as the full programs' entry points take it.
    package static func mask(_ closed: Set<Int32>) -> Int32 {
        closed.reduce(0) { $0 | (1 << $1) }
    }

    /// The descriptors a mask names.
    package static func descriptors(in mask: Int32) -> Set<Int32> {
        Set((0...2).filter { mask & (1 << $0) != 0 })
    }
}
