// What the services (jobs, auth) refuse, in their own words: no HTTP status or error body here. They live in src/api
// beside the error codes because every layer raises them and none may import another's. src/server/api-error.ts maps each
// of these to the spec's ApiError, in one place.

/** The bounded analysis queue has no room for the files of this request (DECISIONS 24). */
export class QueueFull extends Error {
  constructor(public readonly retryAfterSeconds = 5) {
    super('The analysis queue is full. Retry later.');
    this.name = 'QueueFull';
  }
}

/** An Idempotency-Key already used by this application with a different payload (DECISIONS 16). */
export class IdempotencyConflict extends Error {
  constructor() {
    super('This Idempotency-Key was already used with a different request.');
    this.name = 'IdempotencyConflict';
  }
}

/** Something the caller named does not exist, or is not theirs (indistinguishable on purpose, DECISIONS 12). */
export class NotFound extends Error {
  constructor(public readonly what: 'job' | 'file' | 'stored file' | 'application' | 'key' | 'case' | 'file of the case') {
    super(
      what === 'stored file'
        ? 'The stored file is no longer available.'
        : what === 'file'
          ? 'No such file in this job.'
          : what === 'file of the case'
            ? 'No such file in this case.'
            : `No such ${what}.`,
    );
    this.name = 'NotFound';
  }
}

/** The caller asked about an application that is not the one its key belongs to (DECISIONS 11). */
export class ForeignApplication extends Error {
  constructor() {
    super('This API key does not belong to that application.');
    this.name = 'ForeignApplication';
  }
}

/** A job the service has just written could not be read back: a fault, never the caller's. */
export class JobVanished extends Error {
  constructor(jobId: string) {
    super(`The job ${jobId} could not be read back.`);
    this.name = 'JobVanished';
  }
}

/** Another case already has this name: names are how metadata.case finds its case, so they are unique. */
export class CaseNameTaken extends Error {
  constructor(public readonly field: string) {
    super('A case with this name already exists.');
    this.name = 'CaseNameTaken';
  }
}

/** A closed case is kept as it was closed: it takes no file and gives none up until it is opened again. */
export class CaseClosed extends Error {
  constructor(public readonly field: string) {
    super('The case is closed: set its status to open or in review to change its files.');
    this.name = 'CaseClosed';
  }
}

/**
 * The core could not draw a picture of a stored file (its decoder refused it, ran past its time or memory, or its
 * worker died on it): the file is kept and its result stands, only no preview can be served (422 unprocessable).
 */
export class PreviewUnavailable extends Error {
  constructor(reason: string) {
    super(`No preview can be made of this file: ${reason}.`);
    this.name = 'PreviewUnavailable';
  }
}

/** A rectangle of POST .../regions that does not fit its picture, or asks for more tiles than one request scores. */
export class InvalidRegion extends Error {
  constructor(
    public readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidRegion';
  }
}

/** The tiles of a region cannot be scored (no model installed, the picture cannot be decoded now): 422. */
export class TilesUnavailable extends Error {
  constructor(reason: string) {
    super(`The tiles of this region cannot be scored: ${reason}.`);
    this.name = 'TilesUnavailable';
  }
}
