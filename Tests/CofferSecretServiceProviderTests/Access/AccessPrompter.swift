import CofferTestSupport
import Foundation

/// A `--prompter` that notes every question it is asked (kind, program, item; one line each)
/// and answers the word the test last gave it, so a test sees whether a client was asked, and
/// about what.
struct AccessPrompter {
    let asked: URL
    let answerFile: URL

    init(in folder: TemporaryFolder) throws {
        asked = folder.file("prompter/asked")
        answerFile = folder.file("prompter/answer")
        try FileManager.default.createDirectory(at: asked.deletingLastPathComponent(), withIntermediateDirectories: true)
        try answer("deny")
    }

    /// The command line for `--prompter` (run through `/bin/sh -c` with a fixed `PATH`).
    var command: String {
        #"printf '%s|%s|%s\n' "$COFFER_PROMPT_KIND" "$COFFER_PROMPT_PROGRAM" "$COFFER_PROMPT_ITEM" >> '\#(asked.path)'; /bin/cat '\#(answerFile.path)'"#
    }

    /// What the next questions are answered: `once`, `always` or `deny`.
    func answer(_ word: String) throws {
        try Data(word.utf8).write(to: answerFile)
    }

    /// The questions asked so far, oldest first: `KIND|PROGRAM|ITEM`.
    var questions: [String] {
        ((try? String(contentsOf: asked, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
