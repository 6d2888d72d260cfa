import Coffer
import CofferAgent
import CofferBase
import Dispatch
import Foundation

/// `org.freedesktop.Secret.Prompt`, at each prompt's path: `Prompt` runs the prompter off the
/// main loop and reports with `Completed`; with no prompter, `Completed(dismissed: true)` comes
/// at once. No prompt waits forever: the prompter has a time limit, and `Dismiss` ends it.
extension SecretServiceObjects {
    /// How often a wrong passphrase is asked again before the prompt counts as dismissed.
    static let passphraseAttempts = 3

    func promptCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        let prompt = try prompts.prompt(at: call.path, for: call.sender)
        let path = prompt.path
        switch call.method {
        case "Prompt":
            guard prompt.run == nil else { throw .failed("the prompt is already running") }
            guard let prompter else {
                // The reply goes first, then the signal, as a client that waits for it expects.
                loop.perform { objects in objects.finishPrompt(path, opened: [], dismissed: true) }
                return []
            }
            prompt.run = PrompterCommand.Run()
            prompterTurns.enqueue { [loop] done in
                loop.perform { objects in objects.takeTurn(path, prompter: prompter, done: done) }
            }
            return []
        case "Dismiss":
            prompt.run?.cancel()
            loop.perform { objects in objects.finishPrompt(path, opened: [], dismissed: true) }
            return []
        default:
            throw .notSupported("no method \(call.method)")
        }
    }

    /// On the main loop, when the prompt's turn comes: asks, off the loop, for the passphrase of
    /// each of its collections still locked (another prompt may have unlocked them meanwhile),
    /// then completes it and calls `done`. A prompt dismissed while it waited is skipped.
    private func takeTurn(_ path: String, prompter: PrompterCommand, done: @escaping @Sendable () -> Void) {
        guard let prompt = prompts.prompt(at: path), let run = prompt.run, !run.isCancelled else { return done() }
        let collections = prompt.collections.filter { $0.kind != .created && registry.isLocked($0) }
        guard !collections.isEmpty else {
            finishPrompt(path, opened: [], dismissed: false)
            return done()
        }
        let loginURL = registry.loginVaultURL
        DispatchQueue.global().async { [loop] in
            let (opened, dismissed) = Self.askAndOpen(collections, prompter: prompter, run: run, loginURL: loginURL)
            loop.perform { objects in
                objects.finishPrompt(path, opened: opened, dismissed: dismissed)
                done()
            }
        }
    }

    /// Off the main loop: asks for each collection's passphrase and opens its vault (Argon2id).
    /// A created collection needs none: it opens with the login collection.
    private static func askAndOpen(
        _ collections: [ServedCollection], prompter: PrompterCommand, run: PrompterCommand.Run, loginURL: URL
    ) -> (opened: [(ServedCollection, Vault)], dismissed: Bool) {
        var opened: [(ServedCollection, Vault)] = []
        for collection in collections {
            var vault: Vault?
            for attempt in 1...passphraseAttempts where vault == nil {
                let retry = attempt > 1 ? " (the passphrase was wrong; try again)" : ""
                let text = "Unlock the Coffer collection \(TerminalText.escaped(collection.label))\(retry)"
                guard let passphrase = prompter.ask(passphrase: text, run: run) else {
                    return (opened, true)
                }
                vault = try? CollectionRegistry.open(collection, passphrase: passphrase, loginURL: loginURL)
            }
            guard let vault else { return (opened, true) }
            opened.append((collection, vault))
        }
        return (opened, false)
    }

    /// On the main loop: holds what the prompt opened and sends `Completed` with the objects
    /// now unlocked: each object asked for, as asked, and for a locked match the items its
    /// search finds now. A prompt already finished or dismissed is not completed twice.
    func finishPrompt(_ path: String, opened: [(ServedCollection, Vault)], dismissed: Bool) {
        guard let prompt = prompts.remove(path) else { return }
        complete(prompt, opened: opened, dismissed: dismissed)
    }

    /// Ends a prompt that went to make room for another (``PromptTable``): dismissed.
    func endEvicted(_ prompt: PendingPrompt) {
        prompt.run?.cancel()
        complete(prompt, opened: [], dismissed: true)
    }

    private func complete(_ prompt: PendingPrompt, opened: [(ServedCollection, Vault)], dismissed: Bool) {
        let path = prompt.path
        for (collection, vault) in opened { registry.hold(vault, for: collection) }
        var unlocked = prompt.alreadyUnlocked
        if !dismissed {
            announceLockState(of: prompt.collections.filter { registry.unlockWithoutPrompt($0) })
            try? exportCollections()
            for target in prompt.targets where !registry.isLocked(target.collection) {
                unlocked += unlockedPaths(of: target)
            }
        }
        emit("Completed", of: Interface.prompt.rawValue, at: path, [.boolean(dismissed), .boxed(.objectPaths(dismissed ? [] : unlocked))])
    }
}
