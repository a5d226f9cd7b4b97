/**
 * A stand-in for the SQS client's `send`: it records each command by name with its input and
 * answers from a script, so a unit test sees exactly the calls a module makes. Faults it plays
 * are SDK exception instances, as the client throws them.
 */
export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

type Answer = (input: Record<string, unknown>) => unknown;

export class FakeSqs {
  readonly sent: SentCommand[] = [];
  private readonly answers = new Map<string, Answer[]>();

  /** Answers the next call of `command` (SendMessageCommand, ...); calls past the script answer `{}`. */
  on(command: string, ...answers: Answer[]): this {
    this.answers.set(command, [...(this.answers.get(command) ?? []), ...answers]);
    return this;
  }

  named(command: string): Record<string, unknown>[] {
    return this.sent.filter((c) => c.name === command).map((c) => c.input);
  }

  readonly send = async (command: { constructor: { name: string }; input: unknown }): Promise<never> => {
    const name = command.constructor.name;
    const input = command.input as Record<string, unknown>;
    this.sent.push({ name, input });
    const answer = this.answers.get(name)?.shift();
    return (answer ? answer(input) : {}) as never;
  };
}

/** Throws `error` when called: a scripted fault. */
export const fails =
  (error: unknown): Answer =>
  () => {
    throw error;
  };
