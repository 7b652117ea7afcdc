import FlowHost
import FlowKit
import FlowShell

/// A subcommand's arguments, parsed by hand: positional values, repeatable `--option VALUE`s and flags.
struct Arguments {
    var positional: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    /// The usage line errors end with.
    let usage: String

    /// Parses `arguments` with the options and flags of `spec`.
    ///
    /// - Throws: ``Exit`` with ``ExitCode/usage`` for an unknown option or a missing value.
    init(_ arguments: [String], spec: CommandSpec) throws(Exit) {
        try self.init(arguments, options: spec.valuedOptions, flags: spec.flags, usage: spec.usage)
    }

    /// Parses `arguments` given the options that take a value and the flags allowed.
    ///
    /// - Throws: ``Exit`` with ``ExitCode/usage`` for an unknown option or a missing value.
    init(_ arguments: [String], options valued: Set<String>, flags allowed: Set<String>, usage: String) throws(Exit) {
        self.usage = usage
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument == "--help" || argument == "-h" {
                flags.insert("--help")
            } else if valued.contains(argument) {
                guard let value = iterator.next() else { throw Exit.usage("\(argument) needs a value", usage) }
                options[argument, default: []].append(value)
            } else if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                options[String(argument[..<equals]), default: []].append(
                    String(argument[argument.index(after: equals)...]))
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
