import FlowKit
import Glibc
import HostSupport

/// Writes a new, standalone plugin package: one manager, one module, a test that uses FlowKitTesting, a
/// manifest snippet and a README. `swift build` in it makes a library flowhost loads; `swift test` passes.
package struct PluginScaffold: Sendable {
    /// The plugin's name, a Swift identifier starting with a capital: `Greeting`.
    package var name: String
    /// The FlowKit package directory the new package depends on by path.
    package var flowKitPath: String

    /// Checks `name` and makes a scaffold for it.
    ///
    /// - Throws: ``FlowError`` when `name` is not an identifier starting with an uppercase letter, or is the
    ///   name of a module the package builds with (``takenNames``).
    package init(name: String, flowKitPath: String) throws(FlowError) {
        guard let first = name.unicodeScalars.first, ("A"..."Z").contains(first),
            name.unicodeScalars.allSatisfy({
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
            })
        else {
            throw FlowError(
                "plugin name '\(name)' must be ASCII letters and digits starting with an uppercase letter, like '\(Self.suggestedName(for: name))'"
            )
        }
        guard !Self.takenNames.contains(name) else {
            throw FlowError(
                "plugin name '\(name)' is the name of a module the package builds with or imports; choose another, like '\(Self.suggestedName(for: name))'"
            )
        }
        self.name = name
        self.flowKitPath = flowKitPath
    }

    /// A name the scaffold takes, made from `typed`, one it refused: its runs of ASCII letters and digits, each
    /// starting with a capital, joined, without the digits before the first letter, and with `Plugin` after a
    /// name in ``takenNames`` (`my-plugin` is `MyPlugin`, `flow-kit` is `FlowKitPlugin`); a Latin letter with
    /// marks counts as its letter, and a ligature as its letters (``asciiLetters(of:)``: `Über` is `Uber`,
    /// `Straße` is `Strasse`); `Greeting` when `typed` has no ASCII letter.
    package static func suggestedName(for typed: String) -> String {
        let isLetter = { (scalar: Unicode.Scalar) in ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        // Each character looked up once: the Latin letters a name can hold are a few hundred, its length any.
        var letters: [Character: String] = [:]
        let folded = typed.map { character in
            if let known = letters[character] { return known }
            let found = asciiLetters(of: character)
            letters[character] = found
            return found
        }.joined()
        let words = folded.unicodeScalars.split { !isLetter($0) && !("0"..."9").contains($0) }.map {
            String(Substring($0))
        }
        let joined = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        // A name starts with a letter: the digits before the first are left out.
        let trimmed = joined.drop { $0.isNumber }
        let name = trimmed.prefix(1).uppercased() + trimmed.dropFirst()
        guard !name.isEmpty else { return "Greeting" }
        return takenNames.contains(name) ? name + "Plugin" : name
    }

    /// `character` in ASCII letters where it is a Latin letter: with its marks left out (`Ü`, `Č`, or `U`
    /// followed by a combining diaeresis, are `U`), a ligature or a letter with a stroke as the letters it is
    /// written with (`ß` is `ss`, `Ł` is `L`); any other character as it is.
    static func asciiLetters(of character: Character) -> String {
        if character.isASCII { return String(character) }
        if let letters = unmarkedLetters[character] { return letters }
        // Written decomposed: a letter, then its combining marks (U+0300 to U+036F).
        let scalars = character.unicodeScalars
        guard let base = scalars.first, base.isASCII, base.properties.isAlphabetic else {
            // Precomposed, a letter of Latin-1, Latin Extended-A or B, or Latin Extended Additional: the letter
            // and the mark it is canonically the same as (`Č` is `C` and U+030C). Others are not looked up.
            guard let first = scalars.first,
                (0xC0...0x24F).contains(first.value) || (0x1E00...0x1EFF).contains(first.value)
            else { return String(character) }
            for letter in asciiAlphabet {
                for mark in combiningMarks where Character(String(letter) + String(mark)) == character {
                    return String(letter)
                }
            }
            return String(character)
        }
        return scalars.dropFirst().allSatisfy(combiningMarks.contains) ? String(base) : String(character)
    }

    private static let asciiAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    /// Unicode's combining diacritical marks, U+0300 to U+036F.
    private static let combiningMarks = Set((UInt32(0x300)...0x36F).compactMap(Unicode.Scalar.init))

    /// The Latin letters written with other letters, or with a stroke that is not a combining mark.
    private static let unmarkedLetters: [Character: String] = [
        "ß": "ss", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Ø": "O", "ø": "o", "Ł": "L", "ł": "l", "Đ": "D",
        "đ": "d",
    ]

    /// The modules a scaffolded package depends on or its code imports: a plugin of one of these names would
    /// make two modules of that name (`FlowKit` made its own package a dependency cycle).
    static let takenNames: Set = [
        "FlowKit", "FlowKitTesting", "Swift", "Foundation", "FoundationEssentials", "Glibc", "Dispatch", "Testing",
        "XCTest", "Synchronization", "Observation",
    ]

    /// The FlowKit package of the FlowHost checkout that `directory` (a flowhost executable's, such as
    /// `.build/<triple>/debug`) is in: the first `FlowKit/Package.swift` found walking up at most six
    /// directories from it; `nil` when there is none.
    ///
    /// The new package builds it, and building runs its `Package.swift`: one that another user could have
    /// put or changed is refused (``PathTrust``), such as their `/tmp/FlowKit` above a flowhost copied to
    /// `/tmp/rel`, rather than passed over for one further up.
    ///
    /// - Throws: ``FlowError`` naming the FlowKit found and what makes it untrustworthy.
    package static func checkoutFlowKit(above directory: String) throws(FlowError) -> String? {
        var directory = directory
        for _ in 0..<6 {
            let flowKit = (directory == "/" ? "" : directory) + "/FlowKit"
            if access(flowKit + "/Package.swift", F_OK) == 0 {
                if let problem = untrusted(flowKit: flowKit) {
                    throw FlowError(
                        "\(flowKit): \(problem); building a package on it would run code others can change; pass --flowkit PATH/TO/FlowHost/FlowKit"
                    )
                }
                return flowKit
            }
            guard directory != "/" else { return nil }
            directory = parentDirectory(of: directory)
        }
        return nil
    }

    /// What makes the FlowKit package at `flowKit` untrustworthy: its `Package.swift` or FlowKitTesting's,
    /// which building a scaffolded package runs, under another user's control; `nil` when neither is.
    package static func untrusted(flowKit: String) -> String? {
        PathTrust.problem(flowKit + "/Package.swift", ending: .file)
            ?? PathTrust.problem(flowKit + "/FlowKitTesting/Package.swift", ending: .file)
    }

    /// What the new package's `Package.swift` calls the FlowKit package: SwiftPM names a `.package(path:)`
    /// dependency after the last component of its path, whatever the package's own `name`, so a FlowKit copied
    /// to `/tmp/FlowKitCopy` is `FlowKitCopy` (matched without regard to case).
    package var flowKitPackage: String {
        flowKitPath.split(separator: "/").last.map(String.init) ?? flowKitPath
    }

    /// `text` as the inside of a Swift string literal: a FlowKit path with a quote or a backslash in it, pasted
    /// as it is, would end the literal there, and what follows would be Swift code that `swift build` runs.
    static func literal(_ text: String) -> String {
        var literal = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": literal += "\\\\"
            case "\"": literal += "\\\""
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                literal += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal
    }

    /// The plugin's name in manifests and request names: `greeting`.
    package var key: String { name.prefix(1).lowercased() + name.dropFirst() }

    /// The library `swift build` makes: `libGreeting.so`.
    package var library: String { "lib\(name).so" }

    /// The files to write, by path relative to the package directory.
    package var files: [(path: String, contents: String)] {
        [
            ("Package.swift", packageManifest),
            ("Sources/\(name)/\(name)Plugin.swift", pluginFile),
            ("Sources/\(name)/\(name)Manager.swift", managerFile),
            ("Tests/\(name)Tests/\(name)Tests.swift", testFile),
            ("manifest-snippet.json", manifestSnippet),
            ("README.md", readme),
            (".gitignore", ".build/\nPackage.resolved\n"),
        ]
    }
}

// MARK: - Templates

extension PluginScaffold {
    var packageManifest: String {
        """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "\(name)",
            products: [
                // Dynamic: flowhost loads lib\(name).so with dlopen.
                .library(name: "\(name)", type: .dynamic, targets: ["\(name)"]),
            ],
            dependencies: [
                // FlowKit from a FlowHost checkout. These two lines are all to change when FlowKit is published.
                .package(path: "\(Self.literal(flowKitPath))"),
                .package(path: "\(Self.literal(flowKitPath + "/FlowKitTesting"))"),
            ],
            targets: [
                // Depend on the FlowKit *product*, never on FlowKit's sources: host and plugins share one FlowKit.
                // Its package is named after FlowKit's directory, as SwiftPM names a path dependency.
                .target(name: "\(name)", dependencies: [.product(name: "FlowKit", package: "\(Self.literal(flowKitPackage))")]),
                .testTarget(
                    name: "\(name)Tests",
                    dependencies: ["\(name)", .product(name: "FlowKitTesting", package: "FlowKitTesting")]),
            ],
            swiftLanguageModes: [.v6]
        )

        """
    }

    var pluginFile: String {
        """
        import FlowKit

        /// The plugin's managers (and services), each named once, by the name manifests use: the description,
        /// its routes and modules refer to these, so that a misspelt name is a compile error.
        enum Exports {
            static let \(key) = ManagerFactory("\(name)", \(name)Manager.self)
        }

        /// What the \(key) plugin offers the host: its managers and services, the routes it proposes to a
        /// manifest that discovers it (`"discover": ["plugins.d"]`), and the modules its managers present with
        /// the requests each can send (`flowhost graph` draws them).
        let plugin = PluginDescription(
            name: "\(key)",
            version: "0.1.0",
            managers: [Exports.\(key)],
            routes: [
                DeclaredRoute(.show\(name), manager: Exports.\(key)),
            ],
            modules: [
                DeclaredModule(.\(key), presentedBy: Exports.\(key), sends: [.action("settings", "settings.show")]),
            ]
        )

        /// The entry point the host looks up. `PluginEntry.export` compiles the FlowKit version into this plugin.
        @c(flowkit_plugin_entry)
        public func flowkitPluginEntry() -> UnsafeRawPointer { PluginEntry.export(plugin) }

        """
    }

    var managerFile: String {
        """
        import FlowKit

        extension CoordinationRequestName {
            /// Shows the \(key) screen. Payload: none.
            static let show\(name): Self = "\(key).show"
        }

        extension Coordinated {
            /// The \(key) screen.
            static let \(key): Self = "\(key)"
        }

        /// Handles `\(key).show`: greets the signed-in person (context `user.name`) on one screen, pushed inline.
        final class \(name)Manager: FlowManager {
            override func start(_ request: CoordinationRequest, from module: Coordinated) throws -> ManagerStep {
                let person = context.value(atPath: "user.name")?.string ?? "there"
                let screen = self.module(.\(key), title: "\(name)", content: ["message": .string("Hello, \\(person)!")], actions: [
                    // Asks for coordination as this module: the host decides what `settings.show` opens.
                    .request("settings", "settings.show", summary: "open the settings"),
                    ModuleAction("done", summary: "close this screen") { [weak self] _, _ in
                        self?.finish()
                        return nil
                    },
                ])
                return .present(screen, .inline)
            }
        }

        """
    }

    var testFile: String {
        """
        import FlowKit
        import FlowKitTesting
        import Testing
        @testable import \(name)

        @MainActor
        struct \(name)Tests {
            @Test func showGreetsTheSignedInPerson() throws {
                let harness = FlowHarness(plugin: plugin)
                harness.route(.show\(name), to: Exports.\(key))
                harness.context = ["user": ["name": "Ada"]]

                #expect(harness.send(.show\(name)) == .handled(manager: Exports.\(key).name))
                #expect(harness.top == .\(key))
                #expect(harness.topModule?.content["message"] == "Hello, Ada!")
            }

            @Test func settingsActionAsksTheHostForSettings() throws {
                let harness = FlowHarness(plugin: plugin)
                harness.route(.show\(name), to: Exports.\(key))
                harness.send(.show\(name))

                try harness.perform("settings")

                #expect(harness.unrouted.map(\\.name) == ["settings.show"])
            }

            @Test func doneClosesTheScreen() throws {
                let harness = FlowHarness(plugin: plugin)
                harness.route(.show\(name), to: Exports.\(key))
                harness.send(.show\(name))

                try harness.perform("done")

                #expect(harness.top == nil)
            }
        }

        """
    }

    var manifestSnippet: String {
        """
        {
          "manifestVersion": 1,
          "plugins": { "\(key)": "\(library)" },
          "routes": [
            { "request": "\(key).show", "plugin": "\(key)", "manager": "\(name)" }
          ],
          "start": ["\(key).show"]
        }

        """
    }

    var readme: String {
        """
        # \(name): a FlowHost plugin

        Made by `flowhost new-plugin \(name)`. One manager, `\(name)`, handles `\(key).show` by pushing the
        `\(key)` screen, which greets the signed-in person and has two actions: `settings` (asks the host for
        `settings.show`, which another plugin handles: in FlowHost's `manifests/demo.json`, its settings
        plugin; in a manifest that routes no `settings.show`, the action finds no route) and `done`.

        ```sh
        swift build     # makes .build/debug/\(library)
        swift test      # runs Tests/\(name)Tests with FlowKitTesting: no host, no dlopen
        ```

        To run it in a host, run `manifest-snippet.json` as it is, or merge it into a manifest (its `plugins`
        and `routes`, and its `start`, which sends `\(key).show` as the host starts, only if its screen should
        be the first shown), and point flowhost at the library:

        ```sh
        flowhost inspect .build/debug/\(library)
        flowhost run manifest-snippet.json --plugin-path .build/debug
        ```

        Or drop it in: the plugin declares its route, so a manifest that discovers a directory, such as
        `{"manifestVersion": 1, "discover": ["plugins.d"]}`, routes `\(key).show` to it as soon as
        `\(library)` is copied there (with `flowhost run --watch`, while the host runs).

        Then `send \(key).show` at the prompt to show it again. See FlowHost's `docs/authoring.md` for managers,
        modules, context, services, reloading and the loader's errors.

        """
    }
}
