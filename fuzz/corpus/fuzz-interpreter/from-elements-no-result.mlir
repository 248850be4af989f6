func.func @f(%a: f32) {
  "tensor.from_elements"(%a) : (f32) -> ()
  return
}
