/// An array of plain values (integers) that is a value like `Array`, copied on write, and whose
/// elements can also lie in the pages of a file mapped into memory (`MappedFile`): a section
/// cache's arrays are used where the file's pages are, without a copy, and the system copies
/// a page only when it is first written.
///
/// The index's large arrays (ids, sort keys, texts, sections' slots) are flat arrays; nothing
/// else about them differs from `Array`: bounds are checked, a shared array is copied before
/// it changes, and an array that outgrows its room moves to memory of its own.
struct FlatArray<Element: BitwiseCopyable> {
    /// The elements' memory: allocated, or some of a mapped file's pages.
    final class Buffer {
        let base: UnsafeMutablePointer<Element>
        var count: Int
        let capacity: Int
        /// The file whose pages hold the elements; nil when the buffer allocated them.
        let file: MappedFile?

        /// Room for `capacity` elements, none set.
        init(capacity: Int) {
            base = .allocate(capacity: capacity)
            count = 0
            self.capacity = capacity
            file = nil
        }

        /// `count` elements at `offset` bytes into `file` (aligned for `Element`).
        init(count: Int, at offset: Int, of file: MappedFile) {
            base = (file.base + offset).bindMemory(to: Element.self, capacity: count)
            self.count = count
            capacity = count
            self.file = file
        }

        deinit {
            if file == nil { base.deallocate() }
        }
    }

    /// Nil while the array has no room (so that an empty array allocates nothing).
    private var buffer: Buffer?

    init() {}

    /// An array of the `count` elements at `offset` bytes into `file`, used in place. The
    /// offset must be aligned for `Element`, and the elements inside the file and no other
    /// array's (`MappedFile.claim`).
    init(count: Int, at offset: Int, of file: MappedFile) {
        precondition(count >= 0 && offset % MemoryLayout<Element>.alignment == 0, "misaligned")
        guard count > 0 else { return }
        file.claim(offset..<offset + count * MemoryLayout<Element>.stride)
        buffer = Buffer(count: count, at: offset, of: file)
    }

    /// An array of `count` elements that `initializer` writes, every one of them; memory of
    /// many megabytes is first advised for huge pages and faulted in on several threads
    /// (`HugePages`), since all of it is written at once.
    init(count: Int, initializingWith initializer: (UnsafeMutableBufferPointer<Element>) throws -> Void) rethrows {
        guard count > 0 else { return }
        let buffer = Buffer(capacity: count)
        let memory = UnsafeMutableRawBufferPointer(start: buffer.base, count: count * MemoryLayout<Element>.stride)
        HugePages.advise(memory)
        HugePages.faultIn(memory)
        try initializer(UnsafeMutableBufferPointer(start: buffer.base, count: count))
        buffer.count = count
        self.buffer = buffer
    }

    /// An array with room for `capacity` elements, of which `initializer` writes the first
    /// ones and sets how many it wrote.
    init(unsafeUninitializedCapacity capacity: Int, initializingWith initializer: (UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows {
        guard capacity > 0 else { return }
        let buffer = Buffer(capacity: capacity)
        var initialized = 0
        try initializer(UnsafeMutableBufferPointer(start: buffer.base, count: capacity), &initialized)
        precondition(initialized >= 0 && initialized <= capacity, "more elements than room")
        buffer.count = initialized
        self.buffer = buffer
    }

    var capacity: Int { buffer?.capacity ?? 0 }

    /// Moves the elements out of a mapped file into memory of their own, which huge pages
    /// can back (the system backs a file's pages with 4 KB ones only): for an array about to
    /// be read at random many times.
    mutating func moveOutOfFile() {
        guard isMapped else { return }
        self = withUnsafeBufferPointer { elements in
            FlatArray(count: elements.count) { copy in _ = copy.initialize(from: elements) }
        }
    }

    /// True when the elements are some of a mapped file's pages.
    var isMapped: Bool { buffer?.file != nil }

    /// Makes the buffer this array's alone, with room for at least `minimumCapacity`
    /// elements. `growing`: a larger buffer at least doubles the room, so that appends cost
    /// O(1) on average; otherwise it has just the room asked for (`reserveCapacity`).
    @inline(__always)
    private mutating func makeUnique(minimumCapacity: Int, growing: Bool = true) {
        if isKnownUniquelyReferenced(&buffer), let buffer, buffer.capacity >= minimumCapacity { return }
        if buffer == nil, minimumCapacity == 0 { return }
        moveToNewBuffer(minimumCapacity: minimumCapacity, growing: growing)
    }

    @inline(never)
    private mutating func moveToNewBuffer(minimumCapacity: Int, growing: Bool) {
        let old = buffer
        let count = old?.count ?? 0
        let room = growing && minimumCapacity > capacity ? Swift.max(minimumCapacity, 2 * capacity, 8) : Swift.max(minimumCapacity, count)
        let new = Buffer(capacity: room)
        if let old { new.base.initialize(from: old.base, count: count) }
        new.count = count
        buffer = new
    }

    mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique(minimumCapacity: Swift.max(minimumCapacity, count), growing: false)
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        let count = self.count
        makeUnique(minimumCapacity: count + 1)
        let buffer = buffer.unsafelyUnwrapped
        (buffer.base + count).initialize(to: element)
        buffer.count = count + 1
    }

    /// Appends the elements of a buffer in one copy.
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress, !elements.isEmpty else { return }
        let count = self.count
        makeUnique(minimumCapacity: count + elements.count)
        let buffer = buffer.unsafelyUnwrapped
        (buffer.base + count).initialize(from: source, count: elements.count)
        buffer.count = count + elements.count
    }

    /// Appends `count` copies of `element`.
    mutating func append(repeating element: Element, count added: Int) {
        guard added > 0 else { return }
        let count = self.count
        makeUnique(minimumCapacity: count + added)
        let buffer = buffer.unsafelyUnwrapped
        (buffer.base + count).initialize(repeating: element, count: added)
        buffer.count = count + added
    }

    /// Calls `body` with the elements.
    @inline(__always)
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: buffer?.base, count: count))
    }

    /// Calls `body` with the elements, to change them in place.
    @inline(__always)
    mutating func withUnsafeMutableBufferPointer<Result>(_ body: (UnsafeMutableBufferPointer<Element>) throws -> Result) rethrows -> Result {
        makeUnique(minimumCapacity: count)
        return try body(UnsafeMutableBufferPointer(start: buffer?.base, count: count))
    }

    /// Calls `body` with the elements' bytes, to change them in place.
    @inline(__always)
    mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeMutableBufferPointer { try body(UnsafeMutableRawBufferPointer($0)) }
    }

    /// Calls `body` with the elements' bytes.
    @inline(__always)
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withUnsafeBufferPointer { try body(UnsafeRawBufferPointer($0)) }
    }
}

extension FlatArray: RandomAccessCollection, MutableCollection {
    var startIndex: Int { 0 }
    var endIndex: Int {
        @inline(__always) get { buffer?.count ?? 0 }
    }
    var count: Int {
        @inline(__always) get { buffer?.count ?? 0 }
    }

    @inline(__always)
    func index(after index: Int) -> Int { index + 1 }
    @inline(__always)
    func index(before index: Int) -> Int { index - 1 }

    subscript(index: Int) -> Element {
        @inline(__always) get {
            guard let buffer, UInt(bitPattern: index) < UInt(bitPattern: buffer.count) else { preconditionFailure("index out of range") }
            return buffer.base[index]
        }
        @inline(__always) set {
            if !isKnownUniquelyReferenced(&buffer) { makeUnique(minimumCapacity: count) }
            guard let buffer, UInt(bitPattern: index) < UInt(bitPattern: buffer.count) else { preconditionFailure("index out of range") }
            buffer.base[index] = newValue
        }
    }

    func withContiguousStorageIfAvailable<Result>(_ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result? {
        try withUnsafeBufferPointer(body)
    }

    mutating func withContiguousMutableStorageIfAvailable<Result>(_ body: (inout UnsafeMutableBufferPointer<Element>) throws -> Result) rethrows -> Result? {
        try withUnsafeMutableBufferPointer { buffer in
            var inout_ = buffer
            return try body(&inout_)
        }
    }
}

extension FlatArray: RangeReplaceableCollection {
    /// Replaces a range of elements in one move of the ones after it.
    mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == Element {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range out of bounds")
        let inserted = newElements.count, oldCount = count
        let newCount = oldCount - range.count + inserted
        makeUnique(minimumCapacity: newCount)
        guard let buffer else { return }
        let tail = oldCount - range.upperBound
        (buffer.base + range.lowerBound + inserted).moveInitialize(from: buffer.base + range.upperBound, count: tail)
        var place = buffer.base + range.lowerBound
        for element in newElements {
            place.initialize(to: element)
            place += 1
        }
        buffer.count = newCount
    }

    mutating func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
        let copied: Void? = newElements.withContiguousStorageIfAvailable { append(contentsOf: $0) }
        guard copied == nil else { return }
        reserveCapacity(count + newElements.underestimatedCount)
        for element in newElements { append(element) }
    }

    mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        guard keepCapacity, let buffer else {
            self.buffer = nil
            return
        }
        makeUnique(minimumCapacity: buffer.capacity)
        self.buffer.unsafelyUnwrapped.count = 0
    }
}

extension FlatArray where Element == UInt8 {
    /// Appends bytes in one copy.
    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) {
        append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }
}

extension FlatArray: ExpressibleByArrayLiteral {
    init(arrayLiteral elements: Element...) {
        self.init()
        if !elements.isEmpty { elements.withUnsafeBufferPointer { append(contentsOf: $0) } }
    }
}

extension FlatArray: Equatable where Element: Equatable {
    static func == (a: FlatArray, b: FlatArray) -> Bool {
        a.elementsEqual(b)
    }
}

extension FlatArray: CustomStringConvertible {
    var description: String { Array(self).description }
}

/// Copied on write, like `Array`: a buffer is changed only by the one array holding it.
extension FlatArray: @unchecked Sendable where Element: Sendable {}
