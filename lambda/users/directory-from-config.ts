import type { UserPoolConfig } from '../config';
import { CognitoUserDirectory } from './cognito-user-directory';
import type { UserDirectory } from './user-directory';

/** The pool of the configuration: Cognito emails invitations in AWS; the local stand-in hands back a temporary password. */
export function directoryFor(config: UserPoolConfig): UserDirectory {
  return new CognitoUserDirectory({
    userPoolId: config.userPoolId,
    region: config.region,
    endpoint: config.cognitoEndpoint,
    invitations: config.cognitoEndpoint ? 'return-temporary-password' : 'cognito-email',
  });
}
