import Coffer
import CofferAgent
import Dispatch

/// The prompt of an `Unlock` of other programs' items (docs/secret-service.md, "Asking the
/// person"): `Prompt` asks the access question through the `--prompter` for each item, one
/// prompt at a time (``PrompterTurns``, shared with the passphrase prompts), through ``CofferAgent/AccessGate``, which logs
/// each answer and puts the program on the item's access list for `always`. `once` lets this
/// connection read the item until it leaves the bus (``ConnectionGrants``). The first refusal
/// ends the questions. With no prompter, or no item allowed, the prompt completes dismissed and
/// the items stay locked.
extension SecretServiceObjects {
    func runAccessPrompt(_ prompt: PendingPrompt, for call: MethodCall) -> [Variant] {
        let run = PrompterCommand.Run()
        prompt.run = run
        let path = prompt.path, gate = gate, caller = call.caller
        let work = prompt.accessRequests.compactMap { request in registry.vault(of: request.collection).map { (request, $0) } }
        prompterTurns.enqueue { [loop] done in
            DispatchQueue.global().async {
                var allowed: [AccessRequest] = []
                for (request, vault) in work where !run.isCancelled {
                    do throws(CofferError) {
                        try gate.authorize(.read, item: request.id, in: vault, at: request.collection.vaultPath, by: caller?.program, cancellation: run)
                        allowed.append(request)
                    } catch {
                        // A no (or nobody to ask) ends the questions: the rest stay locked.
                        break
                    }
                }
                let answered = allowed
                loop.perform { objects in
                    objects.finishAccessPrompt(path, allowed: answered, caller: caller)
                    done()
                }
            }
        }
        return []
    }

    /// On the main loop: notes the connection's grants and sends `Completed` with the items now
    /// readable (dismissed when there is none). A prompt already dismissed is not completed twice.
    private func finishAccessPrompt(_ path: String, allowed: [AccessRequest], caller: Caller?) {
        guard let prompt = prompts.remove(path) else { return }
        propertyItem = nil
        grants.add(allowed.map { .init(collection: $0.collection.name, rowKey: $0.rowKey) }, for: prompt.owner, caller: caller)
        let dismissed = allowed.isEmpty
        let unlocked = prompt.alreadyUnlocked + allowed.map(\.path)
        emit("Completed", of: Interface.prompt.rawValue, at: path, [.boolean(dismissed), .boxed(.objectPaths(dismissed ? [] : unlocked))])
    }
}
