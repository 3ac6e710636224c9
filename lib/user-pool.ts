import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { PASSWORD_POLICY } from './password-policy';
import { signInDomainPrefix } from './stack-config';

export interface DashboardUserPoolProps {
  readonly stage: string;
  /** RETAIN also turns on deletion protection: people's accounts are not thrown away with a stack. */
  readonly removalPolicy: RemovalPolicy;
}

/** ID and access tokens last an hour; a session is renewed for at most a day before signing in again. */
export const TOKEN_VALIDITY = { idAndAccess: Duration.hours(1), refresh: Duration.days(1) } as const;

/**
 * The people who use the dashboard: a Cognito user pool of its own. Nobody signs up: an operator (the CLI)
 * or an account's admin (the management API) adds people, and Cognito emails them a temporary password.
 * They sign in by email through the pool's managed login, with an optional authenticator app (TOTP).
 */
export class DashboardUserPool extends Construct {
  readonly pool: UserPool;
  readonly domain: UserPoolDomain;

  constructor(scope: Construct, id: string, props: DashboardUserPoolProps) {
    super(scope, id);
    this.pool = new UserPool(this, 'Pool', {
      userPoolName: `prompt-service-${props.stage}`,
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      // A changed email takes effect only once the new address is verified: until then people sign in with the
      // old one, and nobody can take over an account by typing in an address they do not own.
      keepOriginal: { email: true },
      passwordPolicy: {
        minLength: PASSWORD_POLICY.minLength,
        requireLowercase: PASSWORD_POLICY.requireLowercase,
        requireUppercase: PASSWORD_POLICY.requireUppercase,
        requireDigits: PASSWORD_POLICY.requireDigits,
        requireSymbols: PASSWORD_POLICY.requireSymbols,
        tempPasswordValidity: Duration.days(PASSWORD_POLICY.tempPasswordValidityDays),
      },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      // Managed login needs Essentials or Plus; Plus (threat protection) is a decision for later: see the
      // AwsSolutions-COG8 acknowledgement in the stack.
      featurePlan: FeaturePlan.ESSENTIALS,
      userInvitation: {
        emailSubject: 'Your access to the prompt service dashboard',
        emailBody:
          'You were added to the prompt service dashboard. Sign in with your email {username} and the temporary ' +
          'password {####} within 3 days; you will then choose your own password.',
      },
      deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy: props.removalPolicy,
    });

    // Globally unique per region, and stable for the stack's life: its stage and a piece of the stack's id.
    const stackUuidStart = Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID))));
    this.domain = this.pool.addDomain('SignIn', {
      cognitoDomain: { domainPrefix: signInDomainPrefix(props.stage, stackUuidStart) },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
  }

  /** `https://<prefix>.auth.<region>.amazoncognito.com`: managed login and the token endpoint. */
  get signInUrl(): string {
    return this.domain.baseUrl();
  }

  /**
   * The dashboard's app client: public (no secret: a browser keeps none), the authorization-code flow
   * only (the page sends a PKCE challenge, which Cognito then requires at the token endpoint), and no
   * password flows of its own: people sign in on the managed login page.
   */
  addDashboardClient(dashboardUrl: string): UserPoolClient {
    const client = this.pool.addClient('DashboardClient', {
      userPoolClientName: 'dashboard',
      generateSecret: false,
      authFlows: { user: false, userPassword: false, userSrp: false, adminUserPassword: false, custom: false },
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [dashboardUrl],
        logoutUrls: [dashboardUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      idTokenValidity: TOKEN_VALIDITY.idAndAccess,
      accessTokenValidity: TOKEN_VALIDITY.idAndAccess,
      refreshTokenValidity: TOKEN_VALIDITY.refresh,
    });
    // Managed login shows no page for a client without a style: Cognito's own.
    new CfnManagedLoginBranding(this, 'DashboardLoginStyle', {
      userPoolId: this.pool.userPoolId,
      clientId: client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    return client;
  }
}
