import FoundationEssentials

extension ExitStatus {
    /// The first line of ``helpBlock(_:)``; scripts/man.sh finds the block by it.
    package static let helpHeading = "EXIT STATUS"

    /// The exit-status block of a command's help, generated from the cases: the heading, then
    /// one status a line with its meaning, wrapped under the meaning's column. The root command's
    /// block lists every case; scripts/man.sh makes coffer(1)'s EXIT STATUS section of it.
    package static func helpBlock(_ statuses: [ExitStatus] = allCases) -> String {
        let column = "  " + String(repeating: " ", count: numberWidth)
        let lines = statuses.flatMap { status in
            let digits = "\(status.rawValue)"
            let number = "  " + digits + String(repeating: " ", count: numberWidth - digits.count)
            return wrapped(status.meaning, width: lineWidth - column.count).enumerated().map { index, line in
                (index == 0 ? number : column) + line
            }
        }
        return ([helpHeading] + lines).joined(separator: "\n")
    }

    /// The widest status and a space.
    private static let numberWidth = "\(allCases.map(\.rawValue).max() ?? 0)".count + 2
    /// Within the 80 columns help is wrapped to when the width is unknown.
    private static let lineWidth = 78

    /// `text` in lines of at most `width` characters, broken at spaces.
    private static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }
}
