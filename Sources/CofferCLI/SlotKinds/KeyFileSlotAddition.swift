import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

/// `slots add --add-keyfile PATH`: the key file is generated when missing.
struct KeyFileSlotAddition: SlotAddition {
    static let option = "--add-keyfile"

    @Option(name: .customLong("add-keyfile"), help: ArgumentHelp("Add a key-file slot; the file is generated if missing.", valueName: "path"))
    var keyFile: String?

    var isRequested: Bool { keyFile != nil }

    func credential(_ store: StoreOptions) throws -> VaultCredential {
        guard let keyFile else { throw CLIError.usage("\(Self.option) needs a path") }
        let url = URL(fileURLWithPath: keyFile)
        if !FileManager.default.fileExists(atPath: keyFile) { try KeyFile.generate(at: url) }
        return .keyFile(url)
    }
}
