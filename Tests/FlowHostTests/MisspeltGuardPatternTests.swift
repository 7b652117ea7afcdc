import Testing

/// A listing manifest's guard pattern near a routed request is an error of `validate` that names the route,
/// since the route may be the one misspelt: suggesting its request would copy the typo into the guard.
@MainActor
struct MisspeltGuardPatternTests {
    @Test func validateNamesTheRouteAGuardPatternIsNearAsEitherMayBeMisspelt() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "typo.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"},
                            {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"},
                            {"request": "catalog.detial", "plugin": "catalog", "manager": "ItemDetail"}],
                 "guards": [{"requests": ["catalog.detail"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]}
                """)

        let run = try Subprocess.flowhost(["validate", path, "--plugin-path", BuildProducts.directory])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(path): guards[0].requests[0]: \"catalog.detail\" matches no routed request; routes[2].request is \"catalog.detial\": is one of the two misspelt?",
                "\(path): 1 problem found",
            ])
    }

    /// A pattern near the prefix that several routed requests share differs from all of them, which agree:
    /// the guard is the one misspelt, so the prefix is suggested, rather than one of those routes named as
    /// perhaps misspelt.
    @Test func validateSuggestsThePrefixSeveralRoutesShare() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file(
            "typo.json",
            containing: """
                {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"},
                 "routes": [{"request": "catalog.list", "plugin": "catalog", "manager": "ItemList"},
                            {"request": "auth.signIn", "plugin": "auth", "manager": "SignIn"},
                            {"request": "catalog.detail", "plugin": "catalog", "manager": "ItemDetail"}],
                 "guards": [{"requests": ["catalg.*"], "unless": {"context": "user"}, "redirect": "auth.signIn"}]}
                """)

        let run = try Subprocess.flowhost(["validate", path, "--plugin-path", BuildProducts.directory])

        #expect(run.status == 65)
        #expect(
            run.errorLines == [
                "\(path): guards[0].requests[0]: \"catalg.*\" matches no routed request; did you mean \"catalog.*\"?",
                "\(path): 1 problem found",
            ])
    }
}
