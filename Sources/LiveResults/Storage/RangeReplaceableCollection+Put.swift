extension RangeReplaceableCollection where Self: MutableCollection, Index == Int {
    /// Stores `element` at `index`, or appends it when `index` is the end: how a column's
    /// slot is written, a new slot being always the next one.
    @inline(__always)
    mutating func put(_ element: Element, at index: Int) {
        if index == count { append(element) } else { self[index] = element }
    }
}
