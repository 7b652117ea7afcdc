/// One subcommand as its command line reads: its operand, and the options it accepts.
///
/// `flowhost` parses its arguments with these, and its usage lines and shell completion scripts are
/// made from them, so that what is completed and what is accepted cannot drift apart.
package struct CommandSpec: Sendable, Hashable {
    /// What an operand or an option's value is, which says how to complete it.
    package enum Value: Sendable, Hashable {
        /// A file: completed with file names.
        case file
        /// A directory: completed with directory names.
        case directory
        /// One of a few words.
        case choice([String])
        /// One of a few words, then operands of `then`: `report TRACE...`, `clear [LIBRARY]`. Only an operand.
        /// (`then` is not a `Value`: an `indirect` case's box, held by a command line in a global, is hidden
        /// from LeakSanitizer by the case's tag in its pointer, and reported as a leak.)
        case word([String], then: Following)

        /// What follows the word of a ``word(_:then:)`` operand.
        package enum Following: Sendable, Hashable {
            case files
            case nothing

            /// As the value of an operand.
            var value: Value { self == .files ? .file : .text }
        }
        /// Free text, such as a name: nothing to complete.
        case text
    }

    /// An option: `--name`, or `--name VALUE` when it takes a value.
    package struct Option: Sendable, Hashable {
        /// The option with its dashes: `--plugin-path`.
        package var name: String
        /// What its value is; `nil` for a flag.
        package var value: Value?
        /// The value's placeholder in usage lines: `DIR`.
        package var placeholder: String
        /// Whether it may be given more than once.
        package var repeatable: Bool
        /// What it does, in a few lowercase words.
        package var summary: String

        /// A flag, such as `--eager`.
        package static func flag(_ name: String, _ summary: String) -> Option {
            Option(name: name, value: nil, placeholder: "", repeatable: false, summary: summary)
        }

        /// An option that takes a value, such as `--script FILE`.
        package static func valued(
            _ name: String, _ placeholder: String, _ value: Value, repeatable: Bool = false, _ summary: String
        ) -> Option {
            Option(name: name, value: value, placeholder: placeholder, repeatable: repeatable, summary: summary)
        }

        /// `--name`, `--name VALUE` or `--name VALUE...`, in brackets.
        var synopsis: String {
            guard value != nil else { return "[\(name)]" }
            return "[\(name) \(placeholder)]" + (repeatable ? "..." : "")
        }
    }

    /// The subcommand: `run`.
    package var name: String
    /// What it does, in a few lowercase words.
    package var summary: String
    /// The operand's placeholder (`MANIFEST`), or `nil` when the command takes none.
    package var operand: String?
    /// What the operand is.
    package var operandValue: Value
    /// Whether the operand may be left out.
    package var operandIsOptional: Bool
    /// The options, in the order usage lines show them; `--help` is implied.
    package var options: [Option]

    package init(
        name: String, summary: String, operand: String? = nil, operandValue: Value = .text,
        operandIsOptional: Bool = false, options: [Option] = []
    ) {
        self.name = name
        self.summary = summary
        self.operand = operand
        self.operandValue = operandValue
        self.operandIsOptional = operandIsOptional
        self.options = options
    }

    /// `run MANIFEST [--script FILE] [--plugin-path DIR]... [--eager]`.
    package var synopsis: String {
        var words = [name]
        if let operand { words.append(operandIsOptional ? "[\(operand)]" : operand) }
        return (words + options.map(\.synopsis)).joined(separator: " ")
    }

    /// `usage: flowhost run MANIFEST ...`.
    package var usage: String { "usage: flowhost \(synopsis)" }

    /// The names of the options that take a value.
    package var valuedOptions: Set<String> { Set(options.filter { $0.value != nil }.map(\.name)) }

    /// The names of the flags.
    package var flags: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }
}
