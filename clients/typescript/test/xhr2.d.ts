// xhr2 (an XMLHttpRequest for Node, for Google's grpc-web runtime in the tests) ships no types.
declare module "xhr2" {
  const XMLHttpRequest: new () => unknown;
  export default XMLHttpRequest;
}
