import Foundation

/// `coffer-fuzz`: the parsers' fuzz targets (docs/security.md, "Fuzzing").
///
/// In a fuzz build (`scripts/fuzz.sh`), `coffer-fuzz TARGET [libFuzzer options] [CORPUS…]`
/// runs libFuzzer on one target. In any other build it replays inputs instead:
///
///     coffer-fuzz TARGET FILE-OR-FOLDER…     every file through one target
///     coffer-fuzz --all CORPUS               CORPUS/<target>/ through each target
///     coffer-fuzz --seed CORPUS              writes the generated binary seeds
///     coffer-fuzz --list                     the targets' names
@main
struct FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        #if FUZZING
        LibFuzzer.main(arguments)
        #else
        guard arguments.count >= 2 else { usage() }
        do {
            switch arguments[1] {
            case "--list": print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
            case "--all" where arguments.count == 3: try Replay.corpus(at: arguments[2])
            case "--seed" where arguments.count == 3: try Seeds.write(to: arguments[2])
            default:
                guard let target = FuzzTarget.named(arguments[1]), arguments.count > 2 else { usage() }
                let count = try Replay.inputs(arguments[2...], through: target)
                print("\(target.name): \(count) inputs, no crash")
            }
        } catch {
            FileHandle.standardError.write(Data("coffer-fuzz: \(error)\n".utf8))
            exit(1)
        }
        #endif
    }

    static func usage() -> Never {
        let targets = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("usage: coffer-fuzz TARGET|--all CORPUS|--seed CORPUS|--list …\ntargets: \(targets)\n".utf8))
        exit(64)
    }
}
