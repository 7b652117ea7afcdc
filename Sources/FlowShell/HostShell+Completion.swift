import FlowHost
import FlowKit
import FlowManifest
import HostSupport
import LineEditing

extension HostShell {
    /// The first word of every command, as Tab offers them (from ``commands``).
    nonisolated package static let commandWords: [String] = {
        var seen = Set<String>()
        return commands.flatMap(\.words).filter { seen.insert($0).inserted }
    }()

    /// What Tab completes now: the routed requests, the visible module's actions, the modules on screen and
    /// in routes, the plugins `reload NAME` acts on (``Host/pluginNamesToReload``: those in use, and those
    /// discovery refused), the deep links' patterns. A snapshot, safe to hand to the line editor's thread; take
    /// a new one after each command, since a command can change every one of them.
    package var completer: Completer {
        let router = host.coordinator.router
        return Completer(
            requests: host.manifest.routes.map(\.request.rawValue),
            actions: router.top?.actions.map(\.name) ?? [],
            modules: router.modules.map(\.name.rawValue) + host.manifest.routes.compactMap { $0.module?.rawValue },
            plugins: host.pluginNamesToReload, visibleStack: router.state.visibleStack.map(\.rawValue),
            links: host.manifest.deepLinks.routes.map { Self.linkPrefix(of: $0.pattern) })
    }

    /// What of a deep link's pattern Tab can fill in: up to its first capture (`demo://items/` of
    /// `demo://items/{id:int}`), the whole pattern when it has none.
    private static func linkPrefix(of pattern: DeepLinkPattern) -> String {
        let text = pattern.description
        return text.firstIndex(of: "{").map { String(text[..<$0]) } ?? text
    }

    /// Completes the words of the shell's commands from a snapshot of the host's names.
    ///
    /// The first word is a command; after `send` a request name, then `from`, then a module; after `act` an
    /// action of the visible module; after `back` `root` or `to`, then a module; after `reload` a plugin or
    /// `manifest`; after `wait` `reload`, then a plugin; after `expect` what to expect; after `lifecycle` a
    /// phase; after `stats` `--json`; after `help` a command; after `open` the deep links' patterns up to
    /// their first capture; after `save` and `restore` file names.
    ///
    /// A candidate that ends in a slash (a directory, a link's path) is not a whole word: completing it adds
    /// no space.
    package struct Completer: LineCompleter, Equatable {
        package var requests: [String]
        package var actions: [String]
        package var modules: [String]
        package var plugins: [String]
        /// The modules on the visible stack, which `back to` can go back to.
        package var visibleStack: [String]
        /// What `open` can start with: each deep link's pattern up to its first capture.
        package var links: [String]

        /// A completer for these names, in any order and with repeats.
        package init(
            requests: [String], actions: [String], modules: [String], plugins: [String], visibleStack: [String] = [],
            links: [String] = []
        ) {
            self.requests = Array(Set(requests)).sorted()
            self.actions = Array(Set(actions)).sorted()
            self.modules = Array(Set(modules)).sorted()
            self.plugins = Array(Set(plugins)).sorted()
            self.visibleStack = Array(Set(visibleStack)).sorted()
            self.links = Array(Set(links)).sorted()
        }

        package func completions(before textBeforeCursor: String) -> LineCompletion {
            let characters = Array(textBeforeCursor)
            if let start = fileNameStart(in: characters) {
                let word = String(characters[start...])
                return LineCompletion(wordStart: start, candidates: FileNameCompletion.candidates(for: word))
            }
            let wordStart = characters.lastIndex(where: \.isWhitespace).map { $0 + 1 } ?? 0
            let word = String(characters[wordStart...])
            let before = String(characters[..<wordStart]).split(whereSeparator: \.isWhitespace).map(String.init)
            let words = candidates(after: before).filter { $0.hasPrefix(word) }
            return LineCompletion(wordStart: wordStart, candidates: Array(Set(words)).sorted())
        }

        /// Where the file name of a `save` or `restore` line starts: the rest of the line is one name, spaces
        /// and all, as the command reads it. `nil` for another line, or before the command's space.
        private func fileNameStart(in characters: [Character]) -> Int? {
            let leading = characters.prefix(while: \.isWhitespace).count
            guard let commandEnd = characters[leading...].firstIndex(where: \.isWhitespace),
                ["save", "restore"].contains(String(characters[leading..<commandEnd]))
            else { return nil }
            return characters[commandEnd...].firstIndex { !$0.isWhitespace } ?? characters.count
        }

        /// The words that can follow `before`, the complete words typed so far.
        private func candidates(after before: [String]) -> [String] {
            guard let command = before.first else { return HostShell.commandWords }
            switch (command, before.count) {
            case ("send", 1): return requests
            case ("send", 2): return ["from"]
            case ("send", 3) where before[2] == "from": return modules
            case ("act", 1): return actions
            case ("back", 1): return ["root", "to"]
            case ("back", 2) where before[1] == "to": return visibleStack
            case ("reload", 1): return plugins + ["manifest"]
            case ("wait", 1): return ["reload"]
            case ("wait", 2) where before[1] == "reload": return plugins
            case ("expect", 1): return HostShell.expectationFirstWords
            case ("expect", 2) where before[1] == "no": return ["tabs"]
            case ("expect", 2) where before[1] == "outcome":
                return ["handled", "unhandled", "queued", "failed", "redirected", "cancelled"]
            case ("expect", 3) where before[1] == "outcome" && before[2] == "redirected": return ["to"]
            case ("expect", 4) where before[1] == "outcome" && before[3] == "to": return requests
            case ("expect", 2) where before[1] == "top": return modules
            case ("stats", 1): return ["--json"]
            case ("lifecycle", 1): return ["background", "foreground", "terminate"]
            case ("open", 1): return links
            case ("help", 1): return HostShell.commandWords
            default: return []
            }
        }
    }
}

extension HostShell.Completer {
    /// The completer a supervised host sent.
    package init(_ completions: WireProtocol.Completions) {
        self.init(
            requests: completions.requests, actions: completions.actions, modules: completions.modules,
            plugins: completions.plugins, visibleStack: completions.visibleStack, links: completions.links)
    }

    /// What a supervised host sends its supervisor of this completer.
    package var completions: WireProtocol.Completions {
        WireProtocol.Completions(
            requests: requests, actions: actions, modules: modules, plugins: plugins, visibleStack: visibleStack,
            links: links)
    }
}
