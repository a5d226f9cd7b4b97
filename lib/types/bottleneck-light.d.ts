declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck';
  /** Bottleneck's light build (no clustering): the same class, without Redis. */
  export default Bottleneck;
}
