/// The placeholders of a prepared statement's parameters (`$1`, `$2`, …), numbered in the order
/// they are taken: the order its `makeBindings` appends the values. So no `$n` is written by hand,
/// and a fragment that needs a parameter (`CardRow.visible(to:)`) is given its placeholder.
struct Parameters {
    private var count = 0

    /// The next parameter's placeholder.
    mutating func next() -> String {
        self.count += 1
        return "$\(self.count)"
    }
}
