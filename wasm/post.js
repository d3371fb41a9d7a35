// Linked with --post-js: runs inside the module factory, next to Emscripten's glue.
//
// Library-API errors (see wasm/library_api.h). A JS exception thrown from inside
// wasm skips C++ destructors and the restore of the stack pointer, so each one
// leaks a little, and enough of them corrupt the module. Instead a failing call
// records its error through prefixrouteReject() and returns normally; the
// wrappers installed here, around every method and constructor of the bound
// classes, throw the recorded error from JavaScript.

var prefixroutePendingError = null;

/** Called from C++ (EM_JS pr_reject): remembers the error of the current call. */
function prefixrouteReject(type, message) {
  prefixroutePendingError = type === 'RangeError' ? new RangeError(message) : new TypeError(message);
}

function prefixrouteThrowPending() {
  var error = prefixroutePendingError;
  if (error !== null) {
    prefixroutePendingError = null;
    throw error;
  }
}

function prefixrouteGuardMethod(method) {
  return function () {
    prefixroutePendingError = null;
    var result = method.apply(this, arguments);
    prefixrouteThrowPending();
    return result;
  };
}

function prefixrouteGuardClass(name) {
  var Raw = Module[name];
  var proto = Raw.prototype;
  Object.getOwnPropertyNames(proto).forEach(function (key) {
    if (key !== 'constructor' && typeof proto[key] === 'function') proto[key] = prefixrouteGuardMethod(proto[key]);
  });
  // A rejected constructor returns null to embind, so `new Raw(...)` yields an
  // empty object that never owned C++ memory: drop it and throw.
  var Guarded = function () {
    prefixroutePendingError = null;
    var object = Reflect.construct(Raw, arguments);
    prefixrouteThrowPending();
    return object;
  };
  // Same prototype: instanceof works. (Embind makes proto.constructor read-only;
  // it stays the raw constructor.)
  Guarded.prototype = proto;
  Object.defineProperty(Guarded, 'name', { value: name });
  Module[name] = Guarded;
}

// Post-run callbacks run after the bindings are registered and before the
// factory's promise hands the module to anyone.
addOnPostRun(function () {
  ['RadixCache', 'Cluster', 'RoutingPolicy', 'RoundRobin', 'LeastLoaded', 'Affinity', 'AffinityBalanced'].forEach(
    prefixrouteGuardClass,
  );
});
