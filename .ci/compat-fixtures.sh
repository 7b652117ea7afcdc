# Shared by .ci/check-flowkit-compat and .ci/check-flowkit-survival (sourced, not run): the compatibility
# fixture plugins in Tests/Compatibility/<Name>/ (Sources/, manifest.json, script.flow), built as plugin
# authors build theirs, in a package of their own that depends on a FlowKit by path.

# build_fixtures FLOWKIT PACKAGE: builds every fixture against the FlowKit package at FLOWKIT in a package
# generated at PACKAGE; the libraries land in PACKAGE/.build/debug (libCompat<Name>.so).
build_fixtures() {
    local flowkit=$1 package=$2 names=() name
    mkdir -p "$package/Sources"
    for fixture in Tests/Compatibility/*/; do
        name=$(basename "$fixture")
        names+=("Compat$name")
        cp -r "$fixture/Sources" "$package/Sources/Compat$name"
    done
    {
        echo '// swift-tools-version:6.0'
        echo 'import PackageDescription'
        echo "let names = [$(printf '"%s", ' "${names[@]}")]"
        echo 'let package = Package('
        echo '    name: "CompatibilityFixtures",'
        echo '    products: names.map { .library(name: $0, type: .dynamic, targets: [$0]) },'
        echo "    dependencies: [.package(path: \"$flowkit\")],"
        echo '    targets: names.map { .target(name: $0, dependencies: [.product(name: "FlowKit", package: "FlowKit")]) },'
        echo '    swiftLanguageModes: [.v6]'
        echo ')'
    } > "$package/Package.swift"
    (cd "$package" && swift build -q)
}

# run_fixtures FLOWHOST PLUGINS: runs every fixture's script with FLOWHOST, its plugins found in PLUGINS, each
# run stopped after FIXTURE_TIMEOUT seconds (300 by default): a plugin reading moved fields may hang.
run_fixtures() {
    local flowhost=$1 plugins=$2
    for fixture in Tests/Compatibility/*/; do
        echo "-- $fixture"
        timeout "${FIXTURE_TIMEOUT:-300}" "$flowhost" run "$fixture/manifest.json" --plugin-path "$plugins" --script "$fixture/script.flow" --quiet
    done
}
