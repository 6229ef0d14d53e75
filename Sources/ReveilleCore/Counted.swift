/// A count with its noun in the right number: `1 app`, `2 apps`, `0 minutes`.
public func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
