import { Redis } from 'ioredis';
import type { Publisher, Subscriber } from 'resumable-stream/generic';

/**
 * `resumable-stream`'s publisher and subscriber over ioredis (the client the rate limits already use):
 * a subscribing connection can run no other command, so there are two.
 */
export class RedisPubSub {
  readonly publisher: Publisher;
  readonly subscriber: Subscriber;

  private constructor(
    private readonly commands: Redis,
    private readonly subscriptions: Redis,
  ) {
    const listeners = new Map<string, (message: string) => void>();
    subscriptions.on('message', (channel: string, message: string) => listeners.get(channel)?.(message));
    this.publisher = {
      connect: async () => {},
      publish: (channel, message) => commands.publish(channel, message),
      set: (key, value, options) =>
        options?.EX === undefined ? commands.set(key, value) : commands.set(key, value, 'EX', options.EX),
      get: (key) => commands.get(key),
      incr: (key) => commands.incr(key),
    };
    this.subscriber = {
      connect: async () => {},
      subscribe: async (channel, callback) => {
        listeners.set(channel, callback);
        await subscriptions.subscribe(channel);
      },
      unsubscribe: async (channel) => {
        listeners.delete(channel);
        await subscriptions.unsubscribe(channel);
      },
    };
  }

  static async connect(url: string): Promise<RedisPubSub> {
    const options = { lazyConnect: true, maxRetriesPerRequest: 2 };
    const commands = new Redis(url, options);
    const subscriptions = new Redis(url, options);
    // As for the rate limits: the failing command is what callers see. Unheard, ioredis printed every
    // reconnection attempt's error with its stack while Redis was away.
    for (const connection of [commands, subscriptions]) connection.on('error', () => {});
    try {
      await Promise.all([commands.connect(), subscriptions.connect()]);
    } catch (error) {
      commands.disconnect();
      subscriptions.disconnect();
      throw error;
    }
    return new RedisPubSub(commands, subscriptions);
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.commands.quit(), this.subscriptions.quit()]);
  }
}
