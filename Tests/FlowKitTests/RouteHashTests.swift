import Testing

@testable import FlowKit

/// The route table's hash spreads request names that share a prefix, as real ones do (`catalog.item.1`,
/// `catalog.item.2`, ...): each is found in about one probe, not after a walk past its neighbours.
@MainActor
struct RouteHashTests {
    /// A table of the requests `names`, each to its own factory.
    private func table(_ names: [String]) -> RouteTable {
        var mapping = RequestCoordinatorMappingDictionary()
        for name in names { mapping[RequestRoute(CoordinationRequestName(name))] = route(name, PresentingManager.self) }
        return RouteTable(mapping)
    }

    /// 64 names in a table of 128 slots. A hash whose every bit depends on every byte visits about 1.5 slots
    /// per lookup on average at that load; the hash this replaced (a weak mix, indexed by its low bits)
    /// piled such names into two runs and averaged about 24.
    @Test(arguments: ["catalog.item.", "route."])
    func sixtyFourNamesSharingAPrefixTakeAboutOneProbeEach(prefix: String) {
        let probes = table((0..<64).map { "\(prefix)\($0)" }).probeCounts

        #expect(probes.count == 64)
        let average = Double(probes.reduce(0, +)) / Double(probes.count)
        #expect(average < 2.0, "average probes \(average), longest \(probes.max() ?? 0)")
        #expect(probes.max() ?? 0 <= 12)
    }
}
