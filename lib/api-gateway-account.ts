import { Aws, RemovalPolicy } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/**
 * API Gateway writes a REST API's access logs with a role set once for the whole account and region
 * (AWS::ApiGateway::Account); without one, deploying a stage with access logs fails. This sets it, with
 * an inline policy equal to AWS's managed AmazonAPIGatewayPushToCloudWatchLogs but limited to this
 * account's and region's log groups. Both are retained: other APIs of the account may rely on the setting
 * after this stack is gone. Accounts that manage the setting elsewhere deploy with
 * `-c apiGatewayAccountRole=false`.
 */
export class ApiGatewayAccount extends Construct {
  readonly role: Role;
  readonly account: CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway: writes the access logs of REST APIs of this account and region',
      inlinePolicies: {
        PushToCloudWatchLogs: new PolicyDocument({
          statements: [
            new PolicyStatement({
              actions: [
                'logs:CreateLogGroup',
                'logs:CreateLogStream',
                'logs:DescribeLogGroups',
                'logs:DescribeLogStreams',
                'logs:PutLogEvents',
                'logs:GetLogEvents',
                'logs:FilterLogEvents',
              ],
              resources: [`arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:*`],
            }),
          ],
        }),
      },
    });
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
