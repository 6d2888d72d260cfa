#if FUZZING
import CofferBase
import CFuzzer
import Coffer
import Foundation

/// Runs libFuzzer's driver over one target, from this program's own `main`: SwiftPM links
/// executables with their `main` renamed, so libFuzzer's `main` could not replace it.
enum LibFuzzer {
    /// Names the target for the processes libFuzzer starts itself (`-merge=1`), whose
    /// arguments lack it.
    static let targetVariable = "COFFER_FUZZ_TARGET"

    /// The target the callback runs; set once, before the driver starts.
    private static let selected = Guarded<FuzzTarget?>(nil)

    /// `coffer-fuzz TARGET [libFuzzer options] [CORPUS…]`, or the target in ``targetVariable``.
    static func main(_ arguments: [String]) -> Never {
        var arguments = arguments
        if arguments.count > 1, let target = FuzzTarget.named(arguments[1]) {
            arguments.remove(at: 1)
            setenv(targetVariable, target.name, 1)
        }
        guard let target = ProcessInfo.processInfo.environment[targetVariable].flatMap(FuzzTarget.named) else {
            FuzzMain.usage()
        }
        selected.withLock { $0 = target }
        // libFuzzer keeps the strings for its whole run, and ends the process itself.
        var argc = Int32(arguments.count)
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = .allocate(capacity: arguments.count + 1)
        for (index, argument) in arguments.enumerated() { argv?[index] = strdup(argument) }
        argv?[arguments.count] = nil
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
            LibFuzzer.selected.withLock { $0 }?.run(bytes)
            return 0
        })
    }
}
#endif
