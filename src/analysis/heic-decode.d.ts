// Types for heic-decode (it ships none): libheif compiled to WebAssembly, decoding the primary image to RGBA.
declare module 'heic-decode' {
  interface DecodedImage {
    width: number;
    height: number;
    data: Uint8ClampedArray;
  }
  function decode(opts: { buffer: ArrayBuffer | Uint8Array }): Promise<DecodedImage>;
  namespace decode {
    function all(opts: { buffer: ArrayBuffer | Uint8Array }): Promise<Array<{ width: number; height: number; decode(): Promise<DecodedImage> }>>;
  }
  export default decode;
}
