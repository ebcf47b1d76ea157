/// What a connection asks to be: the role a token's `role` claim must allow.
public enum AccessRole: String, Sendable {
  case source, observer
}
