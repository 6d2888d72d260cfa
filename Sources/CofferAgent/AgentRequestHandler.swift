import Coffer
import CofferAgentWire
import CofferBase
import FoundationEssentials
import Glibc

/// What the agent does for a request: vault operations on the vaults it holds unlocked. It knows
/// nothing of connections (``AgentServer`` brings it requests), so that another front end in the
/// agent process can serve the same vaults.
package final class AgentRequestHandler: Sendable {
    package let vaults: HeldVaults
    /// Who may use which item (docs/security.md, "Per-application access"): the one decision
    /// every front door shares, asking the person through the `--prompter` under `confirm`.
    package let gate: AccessGate
    /// The gate of the shares' sockets: what reaches it the share's grant covers (``AccessGate/grantedByShare``).
    package let shareGate: AccessGate
    /// How the agent's Secret Service stands; `nil` for an agent without one.
    private let secretService = Guarded<SecretServiceStatus?>(nil)
    /// The logins the agent brokers (`token` requests); `nil`: it brokers none.
    package let tokenBroker: (any TokenBroker)?
    /// How credential helpers answer a `get` (`helperGet`); `nil`: the helpers ask item by item.
    package let helperRules: (any CredentialHelperRules)?

    /// A handler of `vaults`, asking access questions through `prompter` (`nil`: nobody can be
    /// asked, so `confirm` refuses what it would ask about), brokering logins with `tokenBroker`,
    /// answering credential helpers' `get` by `helperRules`.
    package init(
        vaults: HeldVaults, prompter: PrompterCommand? = nil, tokenBroker: (any TokenBroker)? = nil, helperRules: (any CredentialHelperRules)? = nil
    ) {
        self.vaults = vaults
        self.tokenBroker = tokenBroker
        self.helperRules = helperRules
        gate = AccessGate(prompter: prompter, frontDoor: .agent)
        shareGate = AccessGate(prompter: nil, frontDoor: .share, grantedByShare: true)
    }

    /// Notes, for status, how the agent's Secret Service stands.
    package func report(_ status: SecretServiceStatus) {
        secretService.withLock { $0 = status }
    }

    /// Answers one request from `caller` (`nil`: a peer whose program could not be told),
    /// asking the person when the vault's access policy says so: that may take as long as the
    /// prompter's time limit, so call it where the wait holds up no other client.
    /// `cancellation` ends the prompt (its client left). Safe to call from several threads at
    /// once. `stop` forgets every vault here; ending the serving is the server's part.
    /// `throughShare`: a request a share's filter let through, which goes through ``shareGate``:
    /// nobody is asked, but a token may wait for its provider.
    package func handle(
        _ request: AgentRequest, from caller: Caller?, cancellation: PrompterCommand.Run? = nil, throughShare: Bool = false
    ) -> AgentReply {
        // With asking allowed, every request has its reply.
        answer(request, from: caller, asking: true, cancellation: cancellation, gate: throughShare ? shareGate : gate)
            ?? .failure(.accessDenied(program: AccessGate.name(of: caller?.program)))
    }

    /// Answers one request, unless the person would have to be asked: then `nil`, with nothing
    /// done or logged, and the request goes to ``handle(_:from:cancellation:)`` on a thread
    /// that may wait (a token that needs a refresh waits for its provider). `throughShare`: a
    /// request a share's filter let through (``ShareFilter``), which goes through ``shareGate``
    /// and so never asks.
    package func handleWithoutAsking(_ request: AgentRequest, from caller: Caller?, throughShare: Bool = false) -> AgentReply? {
        answer(request, from: caller, asking: false, cancellation: nil, gate: throughShare ? shareGate : gate)
    }

    /// The longest listing text one reply carries: the frame's body less its version, kind and the field's header.
    static let largestListing = AgentMessage.maxBodyBytes - 7

    func answer(
        _ request: AgentRequest, from caller: Caller?, asking: Bool, cancellation: PrompterCommand.Run?, gate: AccessGate
    ) -> AgentReply? {
        let program = caller?.program
        switch request {
        case .ping, .status, .identify:
            return .agent(pid: getpid(), vaults: vaults.status, failures: vaults.holdFailures, secretService: secretService.withLock { $0 })
        case .stop:
            vaults.forgetAll()
            return .done
        case .lock(let path):
            if let path { vaults.forget(path) } else { vaults.forgetAll() }
            return .done
        case .holds(let path):
            guard let vault = vaults.use(path) else { return .notHeld }
            guard vault.isUnlockedWithCurrentKeys() else {
                vaults.forget(path)
                return .notHeld
            }
            return .done
        case .unlock(let path, let credential, let lifetime):
            do throws(CofferError) {
                let vault = try Vault.open(at: URL(fileURLWithPath: path), unlock: try credential.vaultCredential)
                vaults.hold(vault, at: path, for: TimeInterval(lifetime))
                return .done
            } catch {
                return .failure(error)
            }
        case .set(let path, let id, let secret, let options):
            return withVault(path) { vault throws(CofferError) in
                let written = try gate.set(
                    secret, for: id, options: options, in: vault, at: path, by: program, cancellation: cancellation, mayAsk: asking)
                return written ? .done : nil
            }
        case .item(let path, let id):
            return withVault(path) { vault throws(CofferError) in
                try read(.read, id, in: vault, at: path, by: program, asking: asking, cancellation: cancellation, gate: gate).map { .item($0) }
            }
        case .secret(let path, let id):
            return withVault(path) { vault throws(CofferError) in
                try read(.read, id, in: vault, at: path, by: program, asking: asking, cancellation: cancellation, gate: gate).map { .secret($0?.secret) }
            }
        case .remove(let path, let id):
            return withVault(path) { vault throws(CofferError) in
                guard let item = try read(.delete, id, in: vault, at: path, by: program, asking: asking, cancellation: cancellation, gate: gate) else { return nil }
                return .count(item != nil ? (try vault.remove(id) ? 1 : 0) : 0)
            }
        case .items(let path, let query, let after):
            return withVault(path) { vault throws(CofferError) in
                let listed = try gate.list(query, in: vault, by: program)
                // A share's filter pages what it lets through (``ShareFilter``), after taking out what its grant does not cover.
                return gate.grantedByShare ? .items(listed) : ItemPage.reply(listed, after: after)
            }
        case .listing(let path, let query):
            return withVault(path) { vault throws(CofferError) in
                let text = Data(ItemListing.text(try gate.list(query, in: vault, by: program)).utf8)
                // The thin `coffer list` then hands on to the full program, which asks for the items page by page.
                guard text.count <= Self.largestListing else { throw .invalidArgument(reason: "the listing is larger than one reply; ask for its items") }
                return .secret(text)
            }
        case .removeAll(let path, let query):
            return withVault(path) { vault throws(CofferError) in .count(try gate.removeAll(matching: query, in: vault, by: program)) }
        case .share, .unshare:
            // The server makes and ends shares (``ShareRegistry``); no other front end does.
            return .failure(.invalidArgument(reason: "shares are made and ended on the agent's own socket"))
        case .helperGet(let path, let helper, let input):
            return answerHelperGet(helper, input: input, vault: path, by: caller, asking: asking, cancellation: cancellation, gate: gate)
        case .token, .keepLogin, .endLogin:
            return answerBrokered(request, from: program, asking: asking, cancellation: cancellation, gate: gate)
        }
    }

    /// The item, once the gate lets `program` do `action` on it: `.some(nil)` when there is no
    /// such item, `nil` when the person would have to be asked and `asking` is `false`.
    private func read(
        _ action: AuditEntry.Action, _ id: ItemID, in vault: Vault, at path: String, by program: Program?, asking: Bool,
        cancellation: PrompterCommand.Run?, gate: AccessGate
    ) throws(CofferError) -> Item?? {
        switch try gate.authorize(action, item: id, in: vault, at: path, by: program, cancellation: cancellation, mayAsk: asking) {
        case .absent: return .some(nil)
        case .allowed(let item): return .some(item)
        case .mustAsk: return nil
        }
    }

    /// Runs `body` on the vault held for `path`. A vault that finds itself locked (another process
    /// rotated its key) is forgotten, and the client told the agent does not hold it.
    func withVault(_ path: String, _ body: (Vault) throws(CofferError) -> AgentReply?) -> AgentReply? {
        guard let vault = vaults.use(path) else { return .notHeld }
        do throws(CofferError) {
            return try body(vault)
        } catch .locked {
            vaults.forget(path)
            return .notHeld
        } catch {
            return .failure(error)
        }
    }
}
