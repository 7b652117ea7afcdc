extension Array {
    /// The index of an element `matches`, looked for from both ends at once: what costs the distance from
    /// the nearer end rather than from the first.
    ///
    /// For the lists a coordinator keeps of its children and working managers, of which a restored snapshot
    /// can make thousands: they usually let go of the last one (a parent finishing its children last first)
    /// or of the first (a new root abandoning every child, first first).
    func indexFromBothEnds(where matches: (Element) -> Bool) -> Int? {
        var front = 0
        var back = count - 1
        while front <= back {
            if matches(self[back]) { return back }
            if matches(self[front]) { return front }
            front += 1
            back -= 1
        }
        return nil
    }
}
