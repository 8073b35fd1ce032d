// Two model modules in one file, for the --model tests.
module {
  module @first {
    func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = sinter.relu %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
  }
  module @second {
    func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = sinter.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
  }
}
