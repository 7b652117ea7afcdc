import FlowHost
import FlowKit
import FlowShell

/// A subcommand's arguments, parsed by hand: positional values, `--option VALUE`s and flags. An option that
/// takes a value is given once, unless its spec says it is repeatable (`[--plugin-path DIR]...`): the usage line
/// promises one, and keeping the last of two would leave the other unused without a word.
struct Arguments {
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    /// The usage line errors end with.
    let usage: String

    /// Parses `arguments` with the options and flags of `spec`.
    ///
    /// - Throws: ``Exit`` with ``ExitCode/usage`` for an unknown option, a missing value, or an option given
    ///   twice that is not repeatable.
    init(_ arguments: [String], spec: CommandSpec) throws(Exit) {
        try self.init(
            arguments, options: spec.valuedOptions, flags: spec.flags,
            repeatable: Set(spec.options.filter(\.repeatable).map(\.name)), usage: spec.usage)
    }

    /// Parses `arguments` given the options that take a value, those of them that may be given more than once,
    /// and the flags allowed.
    ///
    /// - Throws: ``Exit`` with ``ExitCode/usage`` for an unknown option, a missing value, or an option given
    ///   twice that is not in `repeatable`.
    init(
        _ arguments: [String], options valued: Set<String>, flags allowed: Set<String>, repeatable: Set<String>,
        usage: String
    ) throws(Exit) {
        self.usage = usage
        var iterator = arguments.makeIterator()
        func add(_ value: String, to option: String) throws(Exit) {
            if let first = options[option]?.first, !repeatable.contains(option) {
                throw Exit.usage("\(option) is given twice, as '\(first)' and as '\(value)': give it once", usage)
            }
            options[option, default: []].append(value)
        }
        while let argument = iterator.next() {
            if argument == "--help" || argument == "-h" {
                flags.insert("--help")
            } else if valued.contains(argument) {
                guard let value = iterator.next() else { throw Exit.usage("\(argument) needs a value", usage) }
                try add(value, to: argument)
            } else if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                try add(String(argument[argument.index(after: equals)...]), to: String(argument[..<equals]))
            } else if allowed.contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("-") && argument != "-" {
                let guess = Suggestion.closest(to: argument, among: valued.union(allowed).sorted(), maxDistance: 2)
                throw Exit.usage(
                    "unknown option '\(argument)'" + (guess.map { "; did you mean '\($0)'?" } ?? ""), usage)
            } else {
                positional.append(argument)
            }
        }
    }

    /// The one positional argument, or a usage error.
    func single(_ what: String) throws(Exit) -> String {
        guard positional.count == 1 else {
            throw Exit.usage(positional.isEmpty ? "missing \(what)" : "unexpected argument '\(positional[1])'", usage)
        }
        return positional[0]
    }

    /// No positional argument, or a usage error.
    func none() throws(Exit) {
        if let extra = positional.first { throw Exit.usage("unexpected argument '\(extra)'", usage) }
    }
}
